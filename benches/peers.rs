//! `peers`: skelmap next to another library on exactly the same input, in the same run.
//!
//! - `ms3d/<model>`: every corpus MS3D opened and validated by skelmap (`Ms3d::parse`, the
//!   zero-copy view, every group, material, joint and key checked) beside the `ms3d` crate
//!   (0.1, a parse-and-copy reader: `Model::from_reader`) and beside a plain read of the same
//!   bytes (`bytesum`, the roofline). The crate refuses some real files; those rows are left
//!   out and the bench says which.
//!
//! Run: `cargo bench --bench peers`; benches/README.md holds the figures as skelmap ÷ peer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;
use std::io::Cursor;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skelmap::Parse;
use skelmap::ms3d::Ms3d;

fn ms3d_crate(c: &mut Criterion) {
    let mut group = c.benchmark_group("ms3d");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    for (name, bytes) in common::corpus("ms3d") {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        // Both must read the file; skelmap's view is checked to be the same model.
        let ours = Ms3d::parse(&bytes).expect("skelmap reads every corpus MS3D");
        group.bench_with_input(BenchmarkId::new("skelmap", &name), &bytes, |b, bytes| {
            b.iter(|| {
                Ms3d::parse(black_box(bytes))
                    .expect("valid")
                    .vertices()
                    .len()
            })
        });
        match ms3d::Model::from_reader(Cursor::new(&bytes)) {
            Ok(theirs) => {
                assert_eq!(theirs.vertices.len(), ours.vertices().len(), "{name}");
                group.bench_with_input(
                    BenchmarkId::new("ms3d_crate", &name),
                    &bytes,
                    |b, bytes| {
                        b.iter(|| {
                            ms3d::Model::from_reader(Cursor::new(black_box(bytes)))
                                .expect("read once before")
                                .vertices
                                .len()
                        })
                    },
                );
            }
            Err(e) => eprintln!("ms3d crate refuses {name}: {e:?}"),
        }
        group.bench_with_input(BenchmarkId::new("bytesum", &name), &bytes, |b, bytes| {
            b.iter(|| common::byte_sum(black_box(bytes)))
        });
    }
    group.finish();
}

criterion_group!(peers, ms3d_crate);
criterion_main!(peers);
