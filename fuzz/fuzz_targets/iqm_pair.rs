#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| skelmap_fuzz::iqm_pair(data));
