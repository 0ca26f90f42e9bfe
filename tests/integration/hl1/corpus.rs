//! The shared Half-Life files (`../shared/corpus-engines/hl1/`) against their MANIFEST header
//! facts and assimp's oracle (`oracle/*.obj`: the bind-pose positions).

use skelmap::Model;
use skelmap::hl1::Hl1;
use skelmap::pose::PoseFrames;
use skelmap::{Parse, Skeleton};

fn oracle_positions(name: &str) -> Option<Vec<[f32; 3]>> {
    let path = skelmap_testkit::corpus_engines_path(&format!("oracle/{name}.obj"))?;
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .filter_map(|l| l.strip_prefix("v "))
            .map(|l| {
                let v: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
                [v[0], v[1], v[2]]
            })
            .collect(),
    )
}

/// `(file, bones, sequences, total frames, body parts, textures (own), shown triangles)`.
const FACTS: [(&str, usize, usize, usize, usize, usize); 3] = [
    ("assimp_man.mdl", 8, 3, 30, 2, 0),
    ("assimp_chrome_sphere.mdl", 1, 1, 221, 1, 1),
    ("assimp_multiple_roots.mdl", 19, 1, 2, 1, 1),
];

#[test]
fn shared_models_match_their_header_facts_and_assimps_bind_pose() {
    let Some(dir) = skelmap_testkit::corpus_engines_path("hl1") else {
        return;
    };
    for (name, bones, seqs, frames, parts, textures) in FACTS {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).unwrap();
        let view = Hl1::parse(&bytes).unwrap();
        skelmap_testkit::exercise::hl1(&view);
        assert_eq!(view.num_bones(), bones, "{name}");
        assert_eq!(view.sequences().len(), seqs, "{name}");
        let total: i32 = view.sequences().iter().map(|s| s.numframes.get()).sum();
        assert_eq!(total as usize, frames, "{name}");
        assert_eq!(view.bodyparts().len(), parts, "{name}");
        assert_eq!(view.textures().len(), textures, "{name}");

        let model = Model::open(&path).unwrap();
        skelmap_testkit::exercise::model(&model);
        let pair = model.as_hl1().unwrap();
        assert_eq!(pair.num_frames(), frames, "{name}");
        assert_eq!(pair.skeleton_bones().len(), bones);
        // Every bind-pose vertex is one of assimp's positions.
        let Some(oracle) = oracle_positions(name) else {
            continue;
        };
        let mesh = model.mesh(0).unwrap();
        let n = mesh.num_vertices();
        let mut p = vec![[0.0; 3]; n];
        let mut nrm = vec![[0.0; 3]; n];
        let mut pose = skelmap::model::Pose::default();
        model.pose_bind(&mut pose);
        model.deform(0, &pose, &mut p, &mut nrm).unwrap();
        // assimp's scene is Y up, facing -Z: its (x, y, z) is Half-Life's (-y, z, -x).
        let far = p
            .iter()
            .map(|v| [-v[1], v[2], -v[0]])
            .map(|v| {
                oracle
                    .iter()
                    .map(|o| (0..3).map(|k| (o[k] - v[k]).powi(2)).sum::<f32>().sqrt())
                    .fold(f32::INFINITY, f32::min)
            })
            .fold(0.0f32, f32::max);
        assert!(far < 1e-3, "{name}: a vertex is {far} from assimp's");
    }
}

#[test]
fn the_texture_and_group_files_of_man_are_found() {
    let Some(dir) = skelmap_testkit::corpus_engines_path("hl1") else {
        return;
    };
    let model = Model::open(dir.join("assimp_man.mdl")).unwrap();
    let pair = model.as_hl1().unwrap();
    let textures = pair.texture_file().expect("assimp_manT.mdl found");
    assert_eq!(textures.textures().len(), 5);
    assert_eq!(
        (textures.num_skinref(), textures.num_skin_families()),
        (3, 2)
    );
    assert_eq!(model.skins().len(), 5);
    assert!(pair.has_group(1));
    // The texture file alone opens as a model of textures and no mesh.
    let alone = Model::open(dir.join("assimp_manT.mdl")).unwrap();
    assert_eq!((alone.num_meshes(), alone.skins().len()), (0, 5));
    // The group file alone is named a companion.
    assert!(matches!(
        Model::open(dir.join("assimp_man01.mdl")),
        Err(skelmap::Error::Unsupported {
            what: "header.id",
            ..
        })
    ));
}

/// Two frames of the first sequence of every shared model, skinned by assimp (its scene's
/// first animation, taken as keys and composed down its nodes) and by `Model::deform`:
/// every vertex of ours is one of assimp's (assimp also shows the body parts' other models).
#[test]
fn two_animated_frames_match_assimp() {
    let Some(dir) = skelmap_testkit::corpus_engines_path("hl1") else {
        return;
    };
    let Some(tool) = crate::support::oracle::md5_frame_tool() else {
        return;
    };
    for (name, ..) in FACTS {
        let path = dir.join(name);
        let model = Model::open(&path).unwrap();
        let frames = model.as_hl1().unwrap().model().sequences()[0]
            .numframes
            .get() as usize;
        for frame in [frames / 2, frames - 1] {
            let theirs: Vec<[f32; 3]> = crate::support::oracle::assimp_frame(&tool, &path, frame)
                .into_iter()
                .map(|v| [-v[2], -v[0], v[1]])
                .collect();
            let mut pose = skelmap::model::Pose::default();
            model
                .pose(
                    frame,
                    frame,
                    0.0,
                    skelmap::pose::Interpolation::Slerp,
                    &mut pose,
                )
                .unwrap();
            let n = model.mesh(0).unwrap().num_vertices();
            let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
            model.deform(0, &pose, &mut p, &mut nrm).unwrap();
            let far = p
                .iter()
                .map(|v| {
                    theirs
                        .iter()
                        .map(|o| (0..3).map(|k| (o[k] - v[k]).powi(2)).sum::<f32>().sqrt())
                        .fold(f32::INFINITY, f32::min)
                })
                .fold(0.0f32, f32::max);
            assert!(
                far < 2e-3,
                "{name} frame {frame}: a vertex is {far} from assimp's"
            );
        }
    }
}
