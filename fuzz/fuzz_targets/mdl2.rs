#![no_main]
// MDL2 shares the Quake reader; its own seeds and dictionary steer it to GameStudio skins.
libfuzzer_sys::fuzz_target!(|data: &[u8]| skelmap_fuzz::quake(data));
