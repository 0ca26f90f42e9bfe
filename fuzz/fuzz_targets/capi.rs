#![no_main]
// Every C ABI export over any bytes opened from memory (see skelmap_capi::exercise).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = skelmap_capi::exercise::exercise(data);
});
