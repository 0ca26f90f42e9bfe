//! `.framegroups` sidecars: lines written with any mix of line endings (LF, CRLF, a lone CR)
//! and comments read as those lines; text of any bytes made of the tokens the reader splits
//! on never panics, and every group it reads lies inside the model's frames.

use skelmap::Format;
use skelmap::pose::framegroups;

/// The bytes the sidecar's tokeniser treats specially, and a few others.
const ALPHABET: &[u8] = b"0123456789 \t\r\n/*\"-.abcxyz\x00\xff";

/// Line endings as editors write them.
const ENDINGS: [&str; 3] = ["\n", "\r\n", "\r"];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn lines_with_any_endings_read_as_written(
        lines in proptest::collection::vec(
            (0u32..32, 1u32..8, 0usize..3, proptest::prelude::any::<bool>()),
            1..12,
        ),
    ) {
        let mut text = String::new();
        for (i, &(first, count, ending, comment)) in lines.iter().enumerate() {
            text += &format!("{first} {count} 10 1");
            if comment {
                text += &format!(" // clip {i}");
            }
            text += ENDINGS[ending];
        }
        let groups = framegroups::parse(text.as_bytes(), 40, Format::Quake);
        let groups = groups.map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
        let read: Vec<(u32, u32)> = groups.iter().map(|g| (g.first, g.count)).collect();
        let written: Vec<(u32, u32)> = lines.iter().map(|&(f, c, _, _)| (f, c)).collect();
        proptest::prop_assert_eq!(read, written);
        for (i, (g, &(_, _, _, comment))) in groups.iter().zip(&lines).enumerate() {
            let name = if comment { format!("clip {i}") } else { format!("group {i}") };
            proptest::prop_assert_eq!(&g.name, &name);
        }
    }

    #[test]
    fn any_text_reads_or_is_refused_and_groups_fit_the_frames(
        picks in proptest::collection::vec(0usize..ALPHABET.len(), 0..200),
        frames in 1u32..64,
    ) {
        let text: Vec<u8> = picks.iter().map(|&i| ALPHABET[i]).collect();
        if let Ok(groups) = framegroups::parse(&text, frames, Format::Quake) {
            for g in groups {
                proptest::prop_assert!(g.count >= 1);
                proptest::prop_assert!(
                    u64::from(g.first) + u64::from(g.count) <= u64::from(frames)
                );
            }
        }
    }
}

/// Clips named after their frames: forty thousand frames of two names (an MD2 whose frames
/// are all `stand` or `run`, each a clip of its own) get names of their own, `run_20000` the
/// last, each found with a look-up rather than by trying every number before it (quadratic
/// in the repeats).
#[test]
fn frames_of_one_name_make_clips_of_their_own_names() {
    let mut b = skelmap::md2::Builder::triangle();
    let frame = b.frames[0].clone();
    b.frames = (0..40_000)
        .map(|i| {
            let mut f = frame.clone();
            f.name = if i % 2 == 0 {
                b"stand".to_vec()
            } else {
                b"run".to_vec()
            };
            f
        })
        .collect();
    let bytes = b.write();
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    let clips = model.clips();
    assert_eq!(clips.len(), 40_000);
    assert_eq!(clips[0].name, "stand");
    assert_eq!(clips[3].name, "run_2");
    assert_eq!(clips[39_999].name, "run_20000");
    let names: std::collections::HashSet<&str> = clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), 40_000);
}
