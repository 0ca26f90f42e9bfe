//! A PSK's animations: the PSA given (`--animation`), or the `.psa` of the same name beside
//! it (`soldier.psk` with `soldier.psa`), as Unreal's importers pair them. A PSA found by
//! name that does not validate, or whose bones match none of the mesh's, is left out with a
//! warning (the mesh opens alone); a given one is an error.

use super::view::{Pair, Psa, Psk};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::resolver::{Resolver, strip_extension};
use crate::view::open::{Companion, CompanionFile, Files, Given, Open};

impl<'a> Open<'a> for Pair<'a> {
    fn companions<'data, R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        _: &[u8],
        given: Given<'data>,
    ) -> Result<Vec<CompanionFile<'data>>> {
        if let Some((path, anim)) = given.animation {
            return Ok(vec![(Companion::Animation, path, anim)]);
        }
        let stem = strip_extension(path);
        for ext in ["psa", "PSA"] {
            let candidate = format!("{stem}.{ext}");
            if let Some(source) = resolver.load(&candidate)? {
                return Ok(vec![(Companion::AnimationBeside, candidate, source)]);
            }
        }
        Ok(Vec::new())
    }

    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        let psk = Psk::parse_with(files.main.bytes(), limits, diag)?;
        let Some((kind, path, source)) = files
            .companions
            .iter()
            .find(|(k, _, _)| matches!(k, Companion::Animation | Companion::AnimationBeside))
        else {
            return Ok(Pair::single(psk));
        };
        let given = *kind == Companion::Animation;
        let psa = match Psa::parse_with(source.bytes(), limits, diag) {
            Ok(psa) => psa,
            Err(e) if given => return Err(e),
            Err(e) => {
                ignored((files, diag), path, e.offset().unwrap_or(0), &e.to_string());
                return Ok(Pair::single(psk));
            }
        };
        let (psa_bones, bones_at) = (psa.num_bones(), psa.bones_at);
        let (pair, unmatched) = Pair::new(psk, psa);
        if unmatched == psa_bones {
            let error = Error::Invalid {
                format: Format::Psa,
                what: "BONENAMES",
                offset: bones_at,
                problem: Problem::Skeleton {
                    bones: psa_bones as u64,
                    joints: pair.psk().num_bones() as u64,
                },
            };
            if given {
                return Err(error);
            }
            ignored((files, diag), path, bones_at, &error.to_string());
            return Ok(Pair::single(pair.psk));
        }
        if unmatched > 0 {
            diag.warn_n(
                Format::Psa,
                WarningKind::CompanionIgnored,
                "BONENAMES",
                bones_at,
                unmatched as u64,
                || format!("{path}: {unmatched} bones match no bone of the mesh; their keys are ignored"),
            );
        }
        Ok(pair)
    }
}

/// Records a PSA beside the mesh that was left out.
fn ignored((files, diag): (&Files<'_>, &mut Diagnostics), path: &str, offset: u64, why: &str) {
    files.leave_out(path);
    diag.warn(
        Format::Psk,
        WarningKind::CompanionIgnored,
        "animation",
        offset,
        || format!("{path}: {why}; not played on this mesh"),
    );
}
