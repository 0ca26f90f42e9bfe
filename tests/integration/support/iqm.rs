//! IQM fixtures: the builder's demo model and where its header fields are.

use skelmap::core::iqm;

/// Offsets of the header's fields.
pub mod at {
    pub const VERSION: u64 = 16;
    pub const FILESIZE: u64 = 20;
    pub const NUM_TEXT: u64 = 28;
    pub const OFS_MESHES: u64 = 40;
    pub const NUM_VERTEXES: u64 = 48;
    pub const OFS_VERTEXARRAYS: u64 = 52;
    pub const OFS_TRIANGLES: u64 = 60;
    pub const OFS_JOINTS: u64 = 72;
    pub const NUM_POSES: u64 = 76;
    pub const OFS_POSES: u64 = 80;
    pub const OFS_ANIMS: u64 = 88;
    pub const NUM_FRAMECHANNELS: u64 = 96;
    pub const OFS_EXTENSIONS: u64 = 120;
    pub const NUM_EXTENSIONS: u64 = 116;
}

/// The builder's demo: 3 joints (root, spine, head), 8 vertices in 2 meshes, 4 triangles,
/// 4 frames (the head's X scale animated), anims "idle" and "wave", bounds per frame.
pub fn demo() -> iqm::Builder {
    iqm::Builder::demo()
}

/// The demo without its mesh and joints: its poses (parents -1, 0, 1), frames and anims only.
pub fn animation_only() -> iqm::Builder {
    iqm::Builder {
        positions: Vec::new(),
        texcoords: Vec::new(),
        normals: Vec::new(),
        blend_indexes: Vec::new(),
        blend_weights: Vec::new(),
        triangles: Vec::new(),
        meshes: Vec::new(),
        joints: Vec::new(),
        pose_parents: vec![-1, 0, 1],
        ..demo()
    }
}

/// The demo as an asset whose spine (joint 1) is keyed to scale 0 in every frame, as an IQM
/// animation hides a part: its skinning matrix has no inverse in any frame.
pub fn demo_spine_collapsed() -> skelmap::asset::Asset {
    let bytes = demo().write().unwrap();
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    let mut asset = model.to_asset(&Default::default()).unwrap();
    for clip in &mut asset.clips {
        let skelmap::asset::ClipKeys::Joints(frames) = &mut clip.keys else {
            panic!("joint keys");
        };
        for keys in frames {
            keys[1].scale = skelmap::glam::Vec3::ZERO;
        }
    }
    asset
}
