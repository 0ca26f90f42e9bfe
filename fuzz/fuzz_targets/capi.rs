#![no_main]
// Every C ABI export over any bytes opened from memory (see skelmap_testkit::capi).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = skelmap_testkit::capi::exercise(data);
});
