//! Walks every accessor of a validated view and asserts the invariants validation promises.
//!
//! Shared by the fuzz targets (`fuzz/src/lib.rs`) and by the integration tests, so a property
//! checked under fuzzing is also checked on every `cargo test`.

use skelmap_core::Model;
use skelmap_core::dpm::Dpm;
use skelmap_core::gamestudio::{Hmp, Mdl, morph};
use skelmap_core::mdl7::Mdl7;
use skelmap_core::model::{Pose, TexcoordLayout};
use skelmap_core::ms3d::Ms3d;
use skelmap_core::pose::{self, Interpolation, LocalPose, Palette, PoseFrames};

use skelmap_core::skin;
use skelmap_core::skm;
use skelmap_core::skm::{Skm, Skp};
use skelmap_core::slmdl;
use skelmap_core::{Bone, SkeletalMesh, Skeleton};

/// Deep walk of any model: its format's own view, then the format-neutral API.
pub fn model(model: &Model<'_>) {
    if let Some(m) = model.as_dpm() {
        dpm(m);
    } else if let Some(m) = model.as_skm() {
        skm_model(m);
    } else if let Some(m) = model.as_skp() {
        skp(m);
    } else if let Some(m) = model.as_ms3d() {
        ms3d(m);
    } else if let Some(m) = model.as_mdl() {
        mdl(m);
    } else if let Some(m) = model.as_hmp() {
        hmp(m);
    } else if let Some(m) = model.as_sl_mdl() {
        slmdl(&m.mdl());
    } else if let Some(m) = model.as_quake() {
        quake(m);
    } else if let Some(m) = model.as_mdl7() {
        mdl7(m);
    } else if let Some(m) = model.as_md3() {
        md3(m.md3());
        for lod in m.lods() {
            md3(lod);
        }
        for i in 0..m.md3().surfaces().len() {
            assert!(m.shader_name(i).is_some());
        }
    } else if let Some(m) = model.as_md2() {
        md2(m);
    } else if let Some(m) = model.as_mdc() {
        mdc(m);
    } else if let Some(m) = model.as_md5() {
        md5(m);
    } else if let Some(m) = model.as_zym() {
        zym(m);
    } else if let Some(m) = model.as_mdr() {
        mdr(m);
    } else if let Some(m) = model.as_hl1() {
        hl1_pair(m);
    } else if let Some(m) = model.as_mdm() {
        mdm_pair(m);
    } else if let Some(m) = model.as_mdx() {
        mdx(m.mdx());
    } else if let Some(m) = model.as_psk() {
        psk(m.psk());
        if let Some(a) = m.psa() {
            psa(a);
        }
    } else if let Some(m) = model.as_psa() {
        psa(m);
    } else if let Some(m) = model.as_iqm() {
        iqm(m.mesh());
        if let Some(a) = m.animation() {
            iqm(a);
        }
        assert!(m.matched_joints() <= m.mesh().num_joints());
    }
    if let Some(a) = model.as_sl_anim() {
        slanim(a);
    }
    if let Some(a) = model.as_sl_mdl().and_then(|m| m.anim()) {
        slanim(&a);
    }
    // The companions left out are some of those opened, in their order, and each was warned
    // of.
    let mut opened = model.companions();
    for left in model.left_out() {
        assert!(
            opened.any(|c| c == left),
            "{left:?} left out but not opened"
        );
    }
    if model.left_out().next().is_some() {
        assert!(
            model
                .diagnostics()
                .get(skelmap_core::WarningKind::CompanionIgnored)
                .is_some()
        );
    }
    neutral(model);
}

/// Every accessor of an IQM view: strings, arrays, joints, poses decoded for every frame,
/// anims, bounds and extensions.
pub fn iqm(m: &skelmap_core::iqm::Iqm<'_>) {
    let verts = m.num_vertices();
    for i in 0..m.num_meshes() {
        assert!(m.mesh_name(i).is_some() && m.mesh_material(i).is_some());
    }
    for a in m.vertex_arrays() {
        let _ = m.custom_name(a);
    }
    for t in 0..m.num_triangles() {
        let tri = m.triangle(t).expect("validated triangle");
        assert!(tri.iter().all(|&v| (v as usize) < verts));
        if let Some(adj) = m.adjacency(t) {
            assert!(
                adj.iter()
                    .all(|&n| n == u32::MAX || (n as usize) < m.num_triangles())
            );
        }
    }
    let bones = m.skeleton_bones().len();
    for v in 0..verts {
        for value in [m.position(v), m.normal(v)].into_iter().flatten() {
            assert!(value.iter().all(|c| c.is_finite()));
        }
        let _ = (m.texcoord(v), m.tangent(v), m.color(v));
        if let Some((indexes, _)) = m.blend(v) {
            assert!(indexes.iter().all(|&i| (i as usize) < bones.max(1)));
        }
    }
    for j in 0..m.num_joints() {
        assert!(m.joint_name(j).is_some());
        let (q, t, s) = m.joint_transform(j).expect("validated joint");
        assert!(q.is_finite() && t.is_finite() && s.is_finite());
    }
    let mut scales = Vec::new();
    for f in 0..m.num_frames().min(64) {
        let mut poses = Vec::new();
        m.frame_poses_into(f, &mut poses);
        assert!(poses.iter().all(|(q, t)| q.is_finite() && t.is_finite()));
        scales.clear();
        m.frame_scales_into(f, &mut scales);
        assert!(scales.iter().all(|s| s.is_finite()));
        if let Some(b) = m.frame_bounds(f) {
            assert!(b.radius.is_finite());
        }
    }
    for a in m.anims() {
        assert!(a.first_frame as usize + a.num_frames as usize <= m.num_frames());
        assert!(a.fps() > 0.0);
    }
    for e in m.extensions() {
        assert!(e.data.len() <= m.data().len());
    }
    let _ = m.comment();
}

/// Every accessor of an MDL7 view: the bones and their bind positions; each group's skins,
/// texture coordinates, triangles, vertices and normals, every frame's vertices and bone
/// transforms, the deformer's elements; then the bind mesh (weights normalised), the bone poses
/// of every frame and, for a model without bones, tweens that land on the frames they name.
pub fn mdl7(m: &Mdl7<'_>) {
    use skelmap_core::view::{MeshView, ModelView};
    let _ = (m.header(), m.data().len());
    let nb = mdl7_bones(m);
    // Groups: skins tile the model's, every index in range, every value read finite.
    let (mut next_skin, mut num_vertices, mut num_triangles) = (0, 0, 0);
    for g in m.groups() {
        let (vertices, triangles) = mdl7_group(m, g, nb, &mut next_skin);
        num_vertices += vertices;
        num_triangles += triangles;
    }
    assert_eq!(next_skin, m.skins().len());
    skins_decode(m.skins());
    // The model's one mesh is every group's vertices and triangles.
    assert_eq!(
        ModelView::num_meshes(m),
        usize::from(!m.groups().is_empty())
    );
    if let Some(mesh) = ModelView::mesh(m, 0) {
        assert_eq!(
            (mesh.num_vertices(), mesh.num_triangles()),
            (num_vertices, num_triangles)
        );
    }
    // Group 0's frames are the model's.
    let frames = m.num_frames();
    assert_eq!(frames, m.groups().first().map_or(0, |g| g.frames().len()));
    for f in 0..frames.min(64) {
        let (a, b) = (
            m.frame(f).expect("frame exists"),
            m.groups()[0].frames().get(f),
        );
        assert!(b.is_some_and(|b| core::ptr::eq(a.name(), b.name())));
    }
    assert!(m.frame(frames).is_none());
    mdl7_bind_mesh(m, nb, num_vertices);
    // Without bones, a tween at 0 or 1 is the frame it starts or ends at: the stored vertices
    // with the frame's replacements.
    if !m.is_skeletal() && num_vertices <= 1 << 16 {
        tween_lands_on_frames(m, num_vertices);
    }
}

/// An MDL7's bones: parents first, every record its declared size, a bind position each;
/// their number.
fn mdl7_bones(m: &Mdl7<'_>) -> usize {
    use skelmap_core::mdl7::raw::NONE16;
    let bones = m.bones();
    let nb = bones.len();
    assert_eq!(bones.bytes().len(), nb * bones.stride());
    assert_eq!(bones.iter().count(), nb);
    assert!(bones.get(nb).is_none() && bones.record(nb).is_none());
    for i in 0..nb {
        let bone = bones.get(i).expect("validated bone");
        assert_eq!(bones.record(i).map(<[u8]>::len), Some(bones.stride()));
        let parent = bone.parent_index.get();
        assert!(
            parent == NONE16 || usize::from(parent) < i,
            "bone {i} parent"
        );
        assert!(
            [bone.x.get(), bone.y.get(), bone.z.get()]
                .iter()
                .all(|c| c.is_finite())
        );
        assert!(m.bind_position(i).is_some());
    }
    assert!(m.bind_position(nb).is_none());
    assert_eq!(Skeleton::skeleton_bones(m).len(), nb);
    for (i, b) in Skeleton::skeleton_bones(m).enumerate() {
        let stored = bones.get(i).map(|r| r.parent_index.get());
        assert_eq!(
            b.parent().map(|p| p as u16),
            stored.filter(|&p| p != NONE16)
        );
        let _ = b.name_lossy();
    }
    assert_eq!(m.is_skeletal(), nb > 0);
    nb
}

/// One MDL7 group: its skins (from `next_skin`, which it advances), texture coordinates,
/// triangles, vertices, frames and weights, every index in range and every value finite;
/// its vertices and triangles.
fn mdl7_group(
    m: &Mdl7<'_>,
    g: &skelmap_core::mdl7::Group<'_>,
    nb: usize,
    next_skin: &mut usize,
) -> (usize, usize) {
    use skelmap_core::mdl7::raw::NONE16;
    let head = g.head();
    let _ = g.name();
    let skins = g.skins();
    assert_eq!(skins.start, *next_skin);
    assert_eq!(skins.len(), head.numskins.get() as usize);
    // A reference names another skin of the same group, in the file's numbering.
    for k in skins.clone() {
        let target = m.skins().get(k).and_then(|s| s.reference());
        assert!(target.is_none_or(|r| r as usize != k && skins.contains(&(r as usize))));
    }
    *next_skin = skins.end;
    let texcoords = g.texcoords();
    assert_eq!(texcoords.len(), head.num_stpts.get() as usize);
    let (triangles, vertices) = (g.triangles(), g.vertices());
    assert_eq!(triangles.len(), head.numtris.get() as usize);
    assert_eq!(vertices.len(), head.numverts.get() as usize);
    assert_eq!(triangles.iter().count(), triangles.len());
    for t in triangles.iter() {
        assert!(
            t.v_index
                .iter()
                .all(|v| usize::from(v.get()) < vertices.len())
        );
        assert!(
            texcoords.is_empty()
                || t.st_index
                    .iter()
                    .all(|s| s.get() == NONE16 || usize::from(s.get()) < texcoords.len())
        );
    }
    assert!(triangles.get(triangles.len()).is_none());
    for i in 0..vertices.len() {
        let v = vertices.get(i).expect("validated vertex");
        assert_eq!(vertices.record(i).map(<[u8]>::len), Some(vertices.stride()));
        assert!(
            [v.x.get(), v.y.get(), v.z.get()]
                .iter()
                .all(|c| c.is_finite())
        );
        // Without bones the field is ignored (and warned about), whatever it holds.
        let bone = v.vertindex.get();
        assert!(
            bone == NONE16 || usize::from(bone) < nb || nb == 0,
            "vertex {i} bone {bone}"
        );
        assert!(g.normal(i).expect("vertex exists").is_finite());
    }
    assert!(vertices.get(vertices.len()).is_none() && g.normal(vertices.len()).is_none());
    mdl7_frames(g, nb, vertices.len());
    if let Some(weights) = g.weights() {
        assert_eq!(weights.iter().count(), weights.len());
        for (bone, name, list) in weights.iter() {
            assert!((bone as usize) < nb && name.len() <= 20);
            for w in list {
                assert!((w.index.get() as usize) < vertices.len());
                assert!(w.weight.get().is_finite() && w.weight.get() >= 0.0);
            }
        }
    }
    (vertices.len(), triangles.len())
}

/// An MDL7 group's frames: found by index they are the frames met in order (the same
/// bytes), every replaced vertex and moved bone in range, every value finite.
fn mdl7_frames(g: &skelmap_core::mdl7::Group<'_>, nb: usize, num_vertices: usize) {
    let frames = g.frames();
    assert_eq!(frames.len(), g.head().numframes.get() as usize);
    assert_eq!(frames.iter().count(), frames.len());
    for (i, f) in frames.iter().enumerate() {
        let same = frames.get(i).expect("frame exists");
        assert!(core::ptr::eq(f.name(), same.name()));
        assert!(core::ptr::eq(f.transforms(), same.transforms()));
        // In any order, a vertex listed more than once (warned about): the last wins.
        let moved = f.vertices();
        for k in 0..moved.len() {
            let v = moved.get(k).expect("validated frame vertex");
            assert!(
                [v.x.get(), v.y.get(), v.z.get()]
                    .iter()
                    .all(|c| c.is_finite())
            );
            assert!(usize::from(v.vertindex.get()) < num_vertices);
        }
        assert!(moved.get(moved.len()).is_none());
        for t in f.transforms() {
            assert!(usize::from(t.bone_index.get()) < nb);
            assert!(t.m.iter().all(|v| v.get().is_finite()));
        }
        for b in 0..nb {
            let named = f
                .transforms()
                .iter()
                .any(|t| usize::from(t.bone_index.get()) == b);
            match f.transform(b) {
                Some(t) => assert_eq!(usize::from(t.bone_index.get()), b),
                None => assert!(!named, "frame {i} moves bone {b}"),
            }
        }
    }
    assert!(frames.get(frames.len()).is_none());
}

/// An MDL7's bind mesh: every vertex, bound to existing bones by weights that sum to 1; and
/// every frame poses every bone.
fn mdl7_bind_mesh(m: &Mdl7<'_>, nb: usize, num_vertices: usize) {
    use skelmap_core::pose::{BindPoseMesh, MAX_BIND_INFLUENCES};
    let mesh = m.bind_mesh();
    assert_eq!(mesh.num_vertices(), num_vertices);
    for v in 0..num_vertices {
        let vertex = mesh.bind_vertex(v).expect("vertex exists");
        assert!(vertex.position.is_finite() && vertex.normal.is_finite());
        let used: Vec<(u16, f32)> = vertex.influences.into_iter().flatten().collect();
        assert!(used.len() <= MAX_BIND_INFLUENCES);
        assert!(
            used.iter()
                .all(|&(bone, w)| usize::from(bone) < nb && (0.0..=1.0 + 1e-6).contains(&w))
        );
        if !used.is_empty() {
            let sum: f32 = used.iter().map(|w| w.1).sum();
            assert!(
                (sum - 1.0).abs() <= 1e-4,
                "vertex {v}'s weights sum to {sum}"
            );
        }
    }
    assert!(mesh.bind_vertex(num_vertices).is_none());
    // Every frame poses every bone.
    let mut poses = Vec::new();
    for f in 0..PoseFrames::num_frames(m).min(64) {
        poses.clear();
        m.frame_poses_into(f, &mut poses);
        assert_eq!(poses.len(), nb);
        for b in 0..nb {
            assert!(m.bone_pose(f, b).is_some());
        }
    }
}

/// Every level of every skin that decodes (with the grey palette) decodes to 4 bytes a texel.
fn skins_decode(skins: &[skelmap_core::alias::skin::Skin<'_>]) {
    let palette = skelmap_core::gamestudio::skin::grey_palette();
    for skin in skins {
        for level in 0..skin.num_levels() {
            if let Some(rgba) = skin.decode_rgba(level, &palette) {
                let (w, h, _) = skin.level(level).expect("level exists");
                assert_eq!(rgba.len() as u64, 4 * u64::from(w) * u64::from(h));
            }
        }
    }
}

/// For an MDL7 without bones: tweens of consecutive frames at 0 and 1 reproduce each frame
/// (within rounding at the magnitude of the vertices), and the normals come out finite.
fn tween_lands_on_frames(m: &Mdl7<'_>, num_vertices: usize) {
    use skelmap_core::view::ModelView;
    let frames = ModelView::num_frames(m);
    let (mut p, mut q) = (
        vec![[0.0f32; 3]; num_vertices],
        vec![[0.0f32; 3]; num_vertices],
    );
    // Frame `f` as the tween should give it, and the magnitude of the values involved.
    let expected = |f: usize| {
        let mut want = Vec::with_capacity(num_vertices);
        let mut scale = 1.0f32;
        for g in m.groups() {
            let first = want.len();
            for v in g.vertices().iter() {
                want.push([v.x.get(), v.y.get(), v.z.get()]);
            }
            if let Some(frame) = g.frames().get(f) {
                for v in frame.vertices().iter() {
                    if let Some(slot) = want.get_mut(first + usize::from(v.vertindex.get())) {
                        *slot = [v.x.get(), v.y.get(), v.z.get()];
                    }
                }
            }
        }
        for g in m.groups() {
            for v in g
                .vertices()
                .iter()
                .chain(g.frames().iter().flat_map(|f| f.vertices().iter()))
            {
                scale = [v.x.get(), v.y.get(), v.z.get()]
                    .into_iter()
                    .fold(scale, |s, c| s.max(c.abs()));
            }
        }
        (want, scale)
    };
    for a in 0..frames.min(4) {
        let b = (a + 1) % frames;
        for (t, lands) in [(0.0, a), (1.0, b)] {
            ModelView::tween(m, 0, a, b, t, skin::SimdLevel::detect(), &mut p, &mut q)
                .expect("frames below num_frames tween");
            let (want, scale) = expected(lands);
            for (w, got) in want.iter().flatten().zip(p.iter().flatten()) {
                assert!(
                    !got.is_finite() || (w - got).abs() <= 1e-5 * scale,
                    "tween {a}→{b} at {t}: {got}, frame {lands} has {w}"
                );
            }
            assert!(q.iter().flatten().all(|c| c.is_finite()));
        }
    }
    let err = ModelView::tween(
        m,
        0,
        frames,
        0,
        0.0,
        skin::SimdLevel::detect(),
        &mut p,
        &mut q,
    );
    assert!(err.is_err(), "frame {frames} of {frames} tweens");
}

/// The format-neutral API: every count, index and range consistent, and every model poses
/// and deforms at its bind pose and three frames; the prepared kernel agrees with the
/// zero-copy deform; the compact layout skins.
pub fn neutral(model: &Model<'_>) {
    neutral_counts(model);
    if model.num_vertices() > 1 << 16 {
        return;
    }
    let frames = model.num_frames();
    let mut pose = Pose::default();
    let prepared = model.prepare().ok();
    let compact = model.compact().ok();
    let mut palettes = (
        skin::SkinMatrices::default(),
        skin::dqs::DualQuatPalette::default(),
    );
    let picks = if frames == 0 {
        vec![None]
    } else {
        vec![None, Some(0), Some(frames / 2), Some(frames - 1)]
    };
    if frames > 0 {
        // Legs and torso at their own pairs (MDM, MDX; every other model follows its legs).
        let last = frames - 1;
        model
            .pose_legs_torso((0, last, 0.5), (last, 0, 0.25), &mut pose)
            .expect("frames below num_frames pose legs and torso");
    }
    for pick in picks {
        match pick {
            Some(f) => model
                .pose(
                    f,
                    (f + 1).min(frames - 1),
                    0.5,
                    Interpolation::Nlerp,
                    &mut pose,
                )
                .expect("a frame below num_frames poses"),
            None => model.pose_bind(&mut pose),
        }
        // Every attachment has a place in every pose of its own model.
        for i in 0..model.num_attachments().min(256) {
            let _ = model.attachment(i).expect("an index below num_attachments");
            model
                .attachment_transform(i, &pose)
                .expect("an attachment is placed by its model's pose");
        }
        for mesh in model.meshes() {
            let n = mesh.num_vertices();
            let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
            model
                .deform(mesh.index(), &pose, &mut p, &mut q)
                .expect("a validated model deforms with its own pose");
            if let Some(c) = compact.as_ref() {
                compact_skins(c, mesh.index(), n, &pose, &mut palettes);
            }
            // The whole prepared model: frames that replace vertices (an MDL7's) included.
            if let Some(prepared) = prepared.as_ref().filter(|x| x.mesh(mesh.index()).is_some()) {
                prepared_agrees(model, prepared, mesh.index(), &pose, &p);
            }
        }
    }
}

/// [`neutral`]'s counts: bones, frames, clips, meshes, triangles, submeshes and materials
/// consistent with each other.
fn neutral_counts(model: &Model<'_>) {
    let bones = model.num_bones();
    assert_eq!(model.bones().len(), bones);
    // A bone looked up by index (directly, where a format holds a table) is the listed one.
    assert!(
        model
            .bones()
            .enumerate()
            .all(|(i, b)| model.bone(i) == Some(b))
    );
    assert_eq!(model.bone(bones), None);
    assert!(model.bones().all(|b| b.parent().is_none_or(|p| p < bones)));
    let frames = model.num_frames();
    for clip in model.clips() {
        assert!(clip.count > 0 && (clip.first + clip.count) as usize <= frames);
    }
    let materials = model.num_materials();
    for mesh in model.meshes() {
        let (verts, tris) = (mesh.num_vertices(), mesh.num_triangles());
        assert_eq!(mesh.triangles().len(), tris);
        assert!(mesh.triangles().flatten().all(|v| (v as usize) < verts));
        if mesh.texcoord_layout() != TexcoordLayout::None {
            assert!((0..tris.min(4096)).all(|t| mesh.corner_texcoords(t).is_some()));
        }
        for sub in mesh.submeshes() {
            assert!(sub.triangle_indices().all(|t| t < tris));
            assert!(sub.material().is_none_or(|m| m < materials));
        }
        let _ = mesh.influence_counts();
    }
}

/// The compact layout skins mesh `mesh` (of `n` vertices) with the model's own pose,
/// linearly and by dual quaternions (its accuracy is held to the exact kernels by the corpus
/// tests).
fn compact_skins(
    c: &skelmap_core::model::Compact,
    mesh: usize,
    n: usize,
    pose: &Pose,
    (matrices, dual_quats): &mut (skin::SkinMatrices, skin::dqs::DualQuatPalette),
) {
    c.matrices(pose, matrices)
        .expect("a skeletal model's pose has bones");
    // Dual quaternions refuse a pose that scales (an IQM's); nothing else.
    let blends = match c.dual_quats(pose, dual_quats) {
        Err(skelmap_core::model::DeformError::Scale { .. }) => false,
        other => {
            other.expect("a skeletal model's pose has bones");
            true
        }
    };
    let (mut r, mut s) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    let level = skin::SimdLevel::detect();
    c.skin_pose(mesh, pose, matrices, level, &mut r, &mut s)
        .expect("the compact mesh skins with its model's pose");
    if blends {
        c.skin_dqs(mesh, dual_quats, level, &mut r, &mut s)
            .expect("the compact mesh blends dual quaternions with its model's pose");
    }
    // In the layout's own order, each vertex is where `prepared_order` says, bit for bit.
    if let Some(folded) = c.mesh(mesh) {
        let n = folded.num_vertices();
        let skinned = |order| {
            let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
            folded
                .skin(matrices, level, order, &mut p, &mut q)
                .expect("the compact mesh skins in either order");
            (p, q)
        };
        let original = skinned(skin::VertexOrder::Original);
        let prepared = skinned(skin::VertexOrder::Prepared);
        let bits = |v: [f32; 3]| v.map(f32::to_bits);
        for (at, &vertex) in folded.prepared_order().iter().enumerate() {
            let v = vertex as usize;
            assert_eq!(bits(prepared.0[at]), bits(original.0[v]), "vertex {v}");
            assert_eq!(bits(prepared.1[at]), bits(original.1[v]), "vertex {v}");
        }
    }
}

/// The prepared kernel's vertices of mesh `mesh` equal `deformed`, the zero-copy deform's,
/// within the rounding both paths can reach (see [`rounding_scale`]).
fn prepared_agrees(
    model: &Model<'_>,
    prepared: &skelmap_core::model::Prepared,
    mesh: usize,
    pose: &Pose,
    deformed: &[[f32; 3]],
) {
    let n = deformed.len();
    let (mut r, mut s) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    prepared
        .skin(
            mesh,
            pose,
            skin::SimdLevel::detect(),
            skin::VertexOrder::Original,
            &mut r,
            &mut s,
        )
        .expect("the prepared mesh skins with its model's pose");
    // The bind-pose vertices both paths start from (a bind-pose format's stored ones).
    let mut bind_pose = Pose::default();
    model.pose_bind(&mut bind_pose);
    let (mut start, mut unused) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    model
        .deform(mesh, &bind_pose, &mut start, &mut unused)
        .expect("a validated model deforms with its bind pose");
    let scale = rounding_scale(model, pose, &[deformed, &start]);
    for (a, b) in deformed.iter().flatten().zip(r.iter().flatten()) {
        if a.is_finite() && b.is_finite() && scale < 1e12 {
            assert!((a - b).abs() <= 1e-4 * scale, "prepared {b} vs deform {a}");
        }
    }
}

/// The magnitude two skinning paths round at: the largest finite coordinate of `vertices`
/// (the deformed ones and those the paths start from) or translation of the pose or of the
/// bind pose, times the most a bone's `world · bind⁻¹` can magnify a vertex.
fn rounding_scale(model: &Model<'_>, pose: &Pose, vertices: &[&[[f32; 3]]]) -> f32 {
    // Both paths round at the magnitude of the largest value they meet: the vertices they
    // start from and give (a stored vertex 1e20 units out, flattened by a bone scaled to zero
    // on one axis, comes out near 0 from one path and 1e11 from the other; regression
    // `a_far_vertex_flattened_by_a_zero_scale_used_to_fail_the_prepared_against_deform_check`),
    // and the translations of the pose and of the bind pose (a joint 1e31 units away leaves
    // nothing of a unit offset in either; regression
    // `a_joint_far_away_used_to_fail_the_prepared_against_deform_check`).
    let translations = |palette: &Palette| {
        palette
            .world
            .iter()
            .flat_map(|m| m.translation.to_array())
            .collect::<Vec<f32>>()
    };
    let far = translations(pose.record_palette())
        .into_iter()
        .chain(translations(model.bind_palette()));
    let scale = vertices
        .iter()
        .copied()
        .flatten()
        .flatten()
        .copied()
        .chain(far)
        .filter(|v| v.is_finite())
        .fold(1.0f32, |m, v| m.max(v.abs()));
    // A bind pose scaled almost to nothing (an IQM joint's scale of 1e-39) has an inverse of
    // 1e39, and the two paths multiply in different orders (regression
    // `a_joint_scaled_to_nothing_used_to_fail_the_prepared_against_deform_check`).
    let largest = |m: &skelmap_core::glam::Mat3A| {
        m.to_cols_array()
            .iter()
            .fold(0.0f32, |acc, v| acc.max(v.abs()))
    };
    let gain = pose
        .record_palette()
        .world
        .iter()
        .zip(&model.bind_palette().world)
        .map(|(now, bind)| largest(&now.matrix3) * largest(&bind.inverse().matrix3))
        .fold(1.0f32, |m, g| {
            if g.is_finite() {
                m.max(g)
            } else {
                f32::INFINITY
            }
        });
    scale * gain
}

/// Deep walk of a DPM: the skeleton, every mesh, one finite pose per bone and frame.
pub fn dpm(m: &Dpm<'_>) {
    let bones = m.num_bones();
    skeleton(m.bones());
    for mesh in m.meshes() {
        skeletal_mesh(&mesh, bones);
        assert_eq!(mesh.group_ids().len(), mesh.num_triangles());
    }
    for f in m.frames() {
        assert_eq!(f.poses().len(), bones, "pose count");
        let finite = |p: &skelmap_core::dpm::raw::BonePose| {
            p.matrix().as_flattened().iter().all(|v| v.is_finite())
        };
        assert!(f.poses().iter().all(finite));
        let _ = (f.name_lossy(), f.mins(), f.maxs());
    }
    let _ = (m.num_vertices(), m.num_triangles(), m.attachments().count());
}

/// Deep walk of an SKM: every mesh, and references below the bone count.
pub fn skm(m: &Skm<'_>) {
    let bones = m.num_bones();
    for mesh in m.meshes() {
        skeletal_mesh(&mesh, bones);
        assert!(
            mesh.references().all(|r| (r as usize) < bones),
            "reference out of range"
        );
        let _ = (
            mesh.mesh_name_lossy(),
            mesh.base_name(),
            mesh.shader_name_lossy(),
        );
    }
}

/// Deep walk of an SKP: the skeleton, one finite pose per bone and frame.
pub fn skp(p: &Skp<'_>) {
    skeleton(p.bones());
    for f in p.frames() {
        assert_eq!(f.poses().len(), p.num_bones(), "pose count");
        for pose in f.poses() {
            assert!(
                pose.quat()
                    .iter()
                    .chain(&pose.origin())
                    .all(|v| v.is_finite())
            );
        }
        let _ = f.name_lossy();
    }
}

/// Deep walk of a paired model: every mesh's bones index the skeleton.
pub fn skm_model(m: &skm::Pair<'_>) {
    skm(&m.skm());
    skp(&m.skp());
    assert_eq!(m.skm().num_bones(), m.skp().num_bones());
    for lod in m.lods() {
        skm(&lod);
        assert_eq!(lod.num_bones(), m.skp().num_bones());
    }
}

/// Every parent precedes its child.
fn skeleton<'a>(bones: impl Iterator<Item = Bone<'a>>) {
    for (i, b) in bones.enumerate() {
        assert!(b.parent().is_none_or(|p| p < i), "bone {i} parent");
        let _ = b.name_lossy();
    }
}

/// What every validated DPM or SKM mesh promises: each vertex has influences on existing bones
/// with finite values, the arrays have their declared lengths, every index is in range.
pub fn skeletal_mesh<'a>(mesh: &impl SkeletalMesh<'a>, bones: usize) {
    let mut n = 0usize;
    for records in mesh.vertices() {
        assert!(!records.is_empty(), "vertex without influences");
        for r in records {
            assert!((r.bonenum() as usize) < bones, "bonenum out of range");
            assert!(r.influence().is_finite());
            assert!(r.origin().iter().chain(&r.normal()).all(|v| v.is_finite()));
        }
        n += 1;
    }
    assert_eq!(n, mesh.num_vertices(), "vertex walk length");
    assert_eq!(mesh.texcoords().len(), n);
    assert!(
        mesh.triangles().flatten().all(|i| (i as usize) < n),
        "index out of range"
    );
}

/// Deep walk of an MS3D: every reference in range, weights normalised, the joint order puts
/// parents first, and the rest pose and a sampled pose skin to finite positions.
pub fn ms3d(m: &Ms3d<'_>) {
    let (vertices, triangles, joints) = (m.vertices().len(), m.triangles().len(), m.joints().len());
    for t in m.triangles() {
        assert!(
            t.vertex_indices
                .iter()
                .all(|v| usize::from(v.get()) < vertices)
        );
    }
    for g in m.groups() {
        assert!(g.triangle_indices().all(|t| usize::from(t) < triangles));
        assert!(g.material().is_none_or(|k| k < m.materials().len()));
        let _ = g.name_lossy();
    }
    for i in 0..vertices {
        let weights = m.vertex_weights(i).unwrap_or_default();
        let total: f32 = weights.iter().flatten().map(|(_, w)| w).sum();
        assert!(
            weights
                .iter()
                .flatten()
                .all(|(j, _)| usize::from(*j) < joints)
        );
        assert!(
            total == 0.0 || (total - 1.0).abs() < 1e-4,
            "weights sum to {total}"
        );
    }
    let mut placed = vec![false; joints];
    for &j in m.evaluation_order() {
        let j = usize::from(j);
        assert!(
            m.joints()[j].parent().is_none_or(|p| placed[p]),
            "parent after child"
        );
        placed[j] = true;
    }
    let _ = m.comments().count();
    if joints <= 64 && vertices <= 4096 {
        // Dual-quaternion skinning at rest and at 0.5 s (its accuracy is tested on real
        // files; here, arbitrary joint transforms must not make it panic).
        let (mut local, mut bind, mut now) = Default::default();
        m.local_rest_pose(&mut local);
        skelmap_core::pose::Palette::build(&mut bind, m, &local);
        m.local_pose_at(0.5, Interpolation::Nlerp, &mut local);
        skelmap_core::pose::Palette::build(&mut now, m, &local);
        let mut dq = skelmap_core::skin::dqs::deltas(&bind, &bind);
        let mut out = vec![[0.0; 3]; 2 * vertices];
        let (positions, normals) = out.split_at_mut(vertices);
        skelmap_core::skin::bind_dqs(m, &dq, positions, normals)
            .expect("the model's own palette covers its joints");
        dq = skelmap_core::skin::dqs::deltas(&now, &bind);
        skelmap_core::skin::bind_dqs(m, &dq, positions, normals)
            .expect("the model's own palette covers its joints");
    }
}

/// Deep walk of an SL mdl: every attribute element readable, float attributes finite,
/// influences summing to 1 where weights are declared.
pub fn slmdl(m: &slmdl::Mesh<'_>) {
    for (_, kind, view) in m.attributes() {
        assert_eq!(view.len(), m.num_vertices());
        for i in 0..view.len() {
            let bytes = view.bytes(i).expect("element in range");
            assert_eq!(bytes.len(), view.size());
            if kind.is_float() {
                for k in 0..view.size() / 4 {
                    assert!(view.float(i, k).is_some_and(f32::is_finite));
                }
            }
        }
    }
    // Where blend indices are declared, the four weights sum to 1 by construction (the last
    // is 1 − Σ the stored ones, all finite).
    for i in 0..m.num_vertices() {
        if let Some(influences) = m.influences(i) {
            let total: f32 = influences.iter().map(|(_, w)| w).sum();
            assert!(
                (total - 1.0).abs() < 1e-3,
                "influences of vertex {i} sum to {total}"
            );
        }
    }
}

/// Deep walk of an SL anim: every keyframe readable, times non-decreasing, samples finite.
pub fn slanim(a: &slmdl::Animation<'_>) {
    let times: Vec<f32> = a.times().collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    for k in 0..a.num_keyframes() {
        let (_, _, keys) = a.key(k).expect("keyframe in range");
        assert_eq!(keys.len(), a.num_bones());
    }
    let mut pose = skelmap_core::pose::LocalPose::default();
    for t in [
        times[0] - 1.0,
        times[0],
        (times[0] + times[times.len() - 1]) / 2.0,
        times[times.len() - 1] + 1.0,
    ] {
        a.sample(t, &mut pose);
        assert_eq!(pose.bones.len(), a.num_bones());
        assert!(pose.bones.iter().all(|(_, t)| t.is_finite()));
    }
}

/// Deep walk of an MDL: indices in range, every skin level decodes to its size, and both
/// morph kernels agree on tweens of consecutive frames.
pub fn mdl(m: &Mdl<'_>) {
    // Frames found by index are the frames met in order (the same bytes).
    let frames = m.frames();
    assert_eq!(frames.iter().count(), frames.len());
    for (i, f) in frames.iter().enumerate().take(64) {
        let g = frames.get(i).expect("frame exists");
        assert!(core::ptr::eq(f.name(), g.name()) && f.frame_type() == g.frame_type());
    }
    assert!(frames.get(frames.len()).is_none());
    let (verts, uvs) = (m.num_vertices(), m.skin_vertices().len());
    for (xyz, uv) in m.triangles() {
        assert!(xyz.iter().all(|&i| usize::from(i) < verts));
        assert!(uvs == 0 || uv.iter().all(|&i| usize::from(i) < uvs));
    }
    skins_decode(m.skins());
    let n = verts;
    let (mut pa, mut na, mut pb, mut nb) = (
        vec![[0.0; 3]; n],
        vec![[0.0; 3]; n],
        vec![[0.0; 3]; n],
        vec![[0.0; 3]; n],
    );
    for f in 0..m.frames().len().min(4) {
        let g = (f + 1) % m.frames().len();
        morph::tween_scalar(m, f, g, 0.5, &mut pa, &mut na).expect("frames exist");
        morph::tween_simd(m, f, g, 0.5, &mut pb, &mut nb).expect("frames exist");
        for (x, y) in pa.iter().flatten().zip(pb.iter().flatten()) {
            assert!((x - y).abs() <= 1e-6 * x.abs().max(1.0) || !x.is_finite());
        }
    }
}

/// Deep walk of a Quake MDL or MDL2: indices in range, groups tile the flattened skins and
/// frames, every skin decodes to its size, corner texture coordinates are finite, and both
/// morph kernels agree on tweens of consecutive frames.
pub fn quake(m: &skelmap_core::quake::Mdl<'_>) {
    // Poses found by index are the poses met in order (the same bytes).
    let frames = m.frames();
    assert_eq!(frames.iter().count(), frames.len());
    for (i, f) in frames.iter().enumerate().take(64) {
        let g = frames.get(i).expect("pose exists");
        assert!(core::ptr::eq(f.header(), g.header()) && core::ptr::eq(f.vertices(), g.vertices()));
    }
    assert!(frames.get(frames.len()).is_none());
    let verts = m.num_vertices();
    for t in 0..m.num_triangles() {
        let (_, v) = m.triangle(t).expect("triangle exists");
        assert!(v.iter().all(|&i| (i as usize) < verts));
        if !m.skins().is_empty() {
            let uv = m.corner_texcoords(t).expect("corners exist");
            assert!(uv.iter().flatten().all(|c| c.is_finite()));
        }
    }
    let frame_groups: Vec<_> = m.frame_groups().collect();
    assert_eq!(frame_groups.len(), m.frame_groups().len());
    for (groups, members) in [
        (m.skin_groups(), m.skins().len()),
        (frame_groups.as_slice(), m.frames().len()),
    ] {
        let mut next = 0;
        for g in groups {
            assert_eq!(g.first(), next);
            assert!(g.count() >= 1);
            assert!(!g.is_group() || g.intervals().len() == g.count());
            next += g.count();
        }
        assert_eq!(next, members);
    }
    let palette = skelmap_core::quake::PALETTE;
    for skin in m.skins() {
        if let Some(rgba) = skin.decode_rgba(0, &palette) {
            let (w, h, _) = skin.level(0).expect("level exists");
            assert_eq!(rgba.len() as u64, 4 * u64::from(w) * u64::from(h));
        }
    }
    let (mut pa, mut na, mut pb, mut nb) = (
        vec![[0.0; 3]; verts],
        vec![[0.0; 3]; verts],
        vec![[0.0; 3]; verts],
        vec![[0.0; 3]; verts],
    );
    for f in 0..m.frames().len().min(4) {
        let g = (f + 1) % m.frames().len();
        skelmap_core::quake::morph::tween_scalar(m, f, g, 0.5, &mut pa, &mut na)
            .expect("frames exist");
        skelmap_core::quake::morph::tween_simd(m, f, g, 0.5, &mut pb, &mut nb)
            .expect("frames exist");
        for (x, y) in pa.iter().flatten().zip(pb.iter().flatten()) {
            assert!((x - y).abs() <= 1e-6 * x.abs().max(1.0) || !x.is_finite());
        }
    }
}

/// Deep walk of an MDR: every frame's matrices read (compressed ones decoded) and finite,
/// every tag on a bone in range and placed at every frame, every level of detail's surfaces
/// walked (vertices, weights, triangles), and the records made from the weights agree with
/// the weights vertex by vertex.
pub fn mdr(m: &skelmap_core::mdr::Mdr<'_>) {
    let (frames, bones) = (m.num_frames(), m.num_bones());
    assert!(frames >= 1 && bones >= 1);
    for f in [0, frames - 1] {
        let frame = m.frame(f).expect("frame exists");
        assert_eq!(frame.bones.len(), bones);
        for b in 0..bones {
            let matrix = frame.matrix(b).expect("bone exists");
            assert!(matrix.as_flattened().iter().all(|v| v.is_finite()));
            let (q, t) = m.bone_pose(f, b).expect("bone pose");
            assert!(q.is_finite() && t.is_finite());
        }
        assert!(frame.matrix(bones).is_none());
        // A bone's scale: its column lengths, never NaN (a huge column's is infinite).
        let mut scales = Vec::new();
        m.frame_scales_into(f, &mut scales);
        assert_eq!(scales.len(), bones);
        assert!(scales.iter().all(|s| !s.is_nan()));
        let _ = (
            m.has_scale(),
            frame.bounds(),
            frame.local_origin(),
            frame.radius(),
            frame.name(),
        );
        for i in 0..m.num_tags() {
            let tag = m.tag(i).expect("tag exists");
            assert!(tag.bone() < bones);
            let pose = m.tag_pose(f, i).expect("tag placed");
            assert!(pose.origin.iter().all(|v| v.is_finite()));
            let between = m.tag_at(f, 0, 0.5, i).expect("tag placed");
            assert!(between.axis.as_flattened().iter().all(|v| v.is_finite()));
        }
    }
    assert!(m.frame(frames).is_none() && m.tag(m.num_tags()).is_none());
    for lod in m.lods() {
        for s in lod.surfaces() {
            let verts = s.num_vertices();
            assert_eq!(s.vertices().len(), verts);
            for t in 0..s.num_triangles() {
                let v = s.triangle(t).expect("triangle exists");
                assert!(v.iter().all(|&i| (i as usize) < verts));
            }
            let _ = (s.name_lossy(), s.shader_name(), s.offset(), s.header());
            let records = s.records();
            assert_eq!(records.num_vertices(), verts);
            for ((vertex, stored), i) in s.vertices().zip(records.vertices()).zip(0..) {
                assert_eq!(vertex.weights.len(), stored.len());
                assert!(
                    vertex
                        .weights
                        .iter()
                        .all(|w| (w.bone_index.get() as usize) < bones)
                );
                let found = s.vertex(i).expect("vertex exists");
                assert!(core::ptr::eq(found.raw, vertex.raw));
            }
            assert!(s.vertex(verts).is_none());
        }
    }
}

/// Deep walk of an MD3: every triangle indexes its surface, texture coordinates and frames
/// read, tags are found per frame, normals are unit, and the scalar and SIMD tweens agree on
/// consecutive frames of every surface.
pub fn md3(m: &skelmap_core::md3::Md3<'_>) {
    let frames = m.num_frames();
    assert!(frames >= 1);
    for f in [0, frames - 1] {
        assert!(m.frame(f).is_some());
        assert_eq!(m.tags(f).len(), m.num_tags());
        for (i, tag) in m.tags(f).enumerate() {
            let same = m.tag(f, i).expect("tag exists");
            assert!(core::ptr::eq(tag.raw(), same.raw()));
            assert!(
                tag.origin()
                    .iter()
                    .chain(tag.axis().as_flattened())
                    .all(|c| c.is_finite())
            );
        }
    }
    assert!(m.frame(frames).is_none() && m.tag(0, m.num_tags()).is_none());
    for s in m.surfaces() {
        let verts = s.num_vertices();
        assert!(verts >= 1);
        for t in 0..s.num_triangles() {
            let v = s.triangle(t).expect("triangle exists");
            assert!(v.iter().all(|&i| (i as usize) < verts));
        }
        assert!(s.triangle(s.num_triangles()).is_none());
        assert!(s.texcoord(verts - 1).is_some() && s.texcoord(verts).is_none());
        let _ = (s.shaders().count(), s.shader_name(), s.name_lossy());
        for f in [0, frames - 1] {
            assert_eq!(s.frame_positions(f).len(), verts);
            let n = s.normal(f, verts - 1).expect("normal exists");
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            assert!((len - 1.0).abs() < 1e-5, "normal of length {len}");
        }
        assert!(s.frame_vertices(frames).is_none());
    }
    let most = m
        .surfaces()
        .iter()
        .map(|s| s.num_vertices())
        .max()
        .unwrap_or(0);
    let (mut pa, mut na, mut pb, mut nb) = (
        vec![[0.0; 3]; most],
        vec![[0.0; 3]; most],
        vec![[0.0; 3]; most],
        vec![[0.0; 3]; most],
    );
    for mesh in 0..m.surfaces().len() {
        for f in 0..frames.min(4) {
            let g = (f + 1) % frames;
            m.tween_with_level(skin::SimdLevel::Portable, mesh, f, g, 0.5, &mut pa, &mut na)
                .expect("frames exist");
            m.tween_with_level(skin::SimdLevel::detect(), mesh, f, g, 0.5, &mut pb, &mut nb)
                .expect("frames exist");
            for (x, y) in pa
                .iter()
                .chain(&na)
                .flatten()
                .zip(pb.iter().chain(&nb).flatten())
            {
                assert!((x - y).abs() <= 1e-6 * x.abs().max(1.0), "{x} ≠ {y}");
            }
        }
        let err = m.tween_with_level(
            skin::SimdLevel::detect(),
            mesh,
            frames,
            0,
            0.0,
            &mut pa,
            &mut na,
        );
        assert!(err.is_err(), "frame {frames} of {frames} tweens");
    }
}

/// Deep walk of an MD5 model: every joint's parent earlier, every mesh's weight ranges inside
/// its weights and naming joints, triangles inside the mesh, bind positions finite and
/// normals unit, records as many as the ranges say; every animation fitting the mesh, every
/// frame's poses finite with unit rotations.
pub fn md5(m: &skelmap_core::md5::Pair<'_>) {
    if let Some(file) = m.mesh_file() {
        let joints = file.num_joints();
        for (i, j) in file.joints().iter().enumerate() {
            assert!(j.parent < i as i32 && j.parent >= -1);
            assert!((j.orientation.length() - 1.0).abs() < 1e-4);
            assert!(file.joint_name(i).is_some());
        }
        let _ = file.commandline();
        for i in 0..file.num_meshes() {
            let mesh = file.mesh(i).expect("mesh exists");
            let (verts, weights) = (mesh.num_verts(), mesh.num_weights());
            assert_eq!(mesh.weight_ranges().len(), verts);
            let mut records = 0;
            for r in mesh.weight_ranges() {
                let (first, count) = (r.first_weight.get() as usize, r.num_weights.get() as usize);
                assert!(count >= 1 && first + count <= weights);
                records += count;
            }
            assert!(
                mesh.weights()
                    .iter()
                    .all(|w| (w.joint_index.get() as usize) < joints)
            );
            assert_eq!(
                SkeletalMesh::vertices(&mesh).map(<[_]>::len).sum::<usize>(),
                records
            );
            assert!(
                SkeletalMesh::triangles(&mesh).all(|t| t.iter().all(|&v| (v as usize) < verts))
            );
            assert!(
                mesh.positions()
                    .iter()
                    .flatten()
                    .all(|c| c.get().is_finite())
            );
            for n in mesh.normals() {
                let [x, y, z] = n.map(|c| c.get());
                assert!(((x * x + y * y + z * z).sqrt() - 1.0).abs() < 1e-4);
            }
            let _ = (mesh.shader_name_lossy(), mesh.mesh_name(), mesh.layout());
        }
        assert!(file.mesh(file.num_meshes()).is_none());
        for a in m.animations() {
            assert_eq!(skelmap_core::md5::Pair::fits(file, &a.anim), None);
        }
    }
    for a in m.animations() {
        let anim = &a.anim;
        assert!(anim.frame_rate() > 0.0 && anim.num_frames() >= 1);
        for f in 0..anim.num_frames() {
            let poses = anim.frame(f).expect("frame exists");
            assert_eq!(poses.len(), anim.num_joints());
            for (q, t) in poses {
                assert!(q.is_finite() && t.is_finite());
                assert!(
                    (q.length() - 1.0).abs() < 1e-3,
                    "rotation of length {}",
                    q.length()
                );
            }
            assert!(anim.bounds(f).is_some());
        }
        assert!(anim.frame(anim.num_frames()).is_none());
        let _ = (
            anim.commandline(),
            anim.hierarchy(),
            anim.base_frame(0),
            anim.joint_name(0),
        );
    }
}

/// Deep walk of an MDC: tags found per frame with finite, orthonormal axes, every triangle
/// indexes its surface, every frame's base and compressed frames exist, positions finite and
/// normals unit, and every tween (morph kernel or per-vertex decode) equals the decoded
/// frames blended.
pub fn mdc(m: &skelmap_core::mdc::Mdc<'_>) {
    let frames = m.num_frames();
    assert!(frames >= 1);
    for f in [0, frames - 1] {
        assert!(m.frame(f).is_some());
        assert_eq!(m.tags(f).len(), m.num_tags());
        for (i, tag) in m.tags(f).enumerate() {
            let same = m.tag(f, i).expect("tag exists");
            assert!(core::ptr::eq(tag.raw(), same.raw()));
            let pose = m.tag_at(f, 0, 0.5, i).expect("tag exists");
            assert!(
                pose.origin
                    .iter()
                    .chain(pose.axis.as_flattened())
                    .all(|c| c.is_finite())
            );
        }
    }
    assert!(m.frame(frames).is_none() && m.tag(0, m.num_tags()).is_none());
    let most = m
        .surfaces()
        .iter()
        .map(|s| s.num_vertices())
        .max()
        .unwrap_or(0);
    let (mut p, mut n) = (vec![[0.0; 3]; most], vec![[0.0; 3]; most]);
    for (mesh, s) in m.surfaces().iter().enumerate() {
        let verts = s.num_vertices();
        assert!(verts >= 1);
        for t in 0..s.num_triangles() {
            let v = s.triangle(t).expect("triangle exists");
            assert!(v.iter().all(|&i| (i as usize) < verts));
        }
        assert!(s.triangle(s.num_triangles()).is_none());
        assert!(s.texcoord(verts - 1).is_some() && s.texcoord(verts).is_none());
        let _ = (s.shaders().count(), s.shader_name(), s.name_lossy());
        for f in [0, frames - 1] {
            assert!(s.base_frame(f).is_some_and(|b| b < s.num_base_frames()));
            assert!(s.comp_frame(f).is_none_or(|c| c < s.num_comp_frames()));
            let q = s.normal(f, verts - 1).expect("normal exists");
            let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
            assert!((len - 1.0).abs() < 1e-5, "normal of length {len}");
        }
        assert!(s.base_frame(frames).is_none() && s.position(frames, 0).is_none());
        for f in 0..frames.min(4) {
            let g = (f + 1) % frames;
            for level in [skin::SimdLevel::Portable, skin::SimdLevel::detect()] {
                m.tween_with_level(level, mesh, f, g, 0.5, &mut p, &mut n)
                    .expect("frames exist");
                for (v, got) in p.iter().take(verts).enumerate() {
                    let (a, b) = (
                        s.position(f, v).expect("vertex"),
                        s.position(g, v).expect("vertex"),
                    );
                    for k in 0..3 {
                        let want = a[k] + 0.5 * (b[k] - a[k]);
                        assert!((got[k] - want).abs() <= 1e-5 * want.abs().max(1.0));
                    }
                }
            }
        }
        let err = m.tween_with_level(
            skin::SimdLevel::detect(),
            mesh,
            frames,
            0,
            0.0,
            &mut p,
            &mut n,
        );
        assert!(err.is_err(), "frame {frames} of {frames} tweens");
    }
}

/// Deep walk of an MD2: frames found by index are the frames met in order, every triangle
/// indexes the vertices, texture coordinates are finite, the GL commands name vertices in
/// range, normals are unit, and every SIMD level's tween equals the scalar one to the bit.
pub fn md2(m: &skelmap_core::md2::Md2<'_>) {
    let frames = m.frames();
    assert!(!frames.is_empty());
    assert_eq!(frames.iter().count(), frames.len());
    for (i, f) in frames.iter().enumerate().take(64) {
        let g = frames.get(i).expect("frame exists");
        assert!(core::ptr::eq(f.header(), g.header()) && core::ptr::eq(f.vertices(), g.vertices()));
    }
    assert!(frames.get(frames.len()).is_none());
    let verts = m.num_vertices();
    for t in 0..m.num_triangles() {
        let (v, _) = m.triangle(t).expect("triangle exists");
        assert!(v.iter().all(|&i| (i as usize) < verts));
        if let Some(uv) = m.corner_texcoords(t) {
            assert!(uv.iter().flatten().all(|c| c.is_finite()));
        }
    }
    assert!(m.triangle(m.num_triangles()).is_none());
    let _ = (m.skin_names().count(), m.st().count(), m.skin_size());
    for command in m.gl_commands() {
        assert!(
            command
                .vertices
                .iter()
                .all(|v| (v.index.get() as usize) < verts)
        );
    }
    for f in [0, frames.len() - 1] {
        let frame = frames.get(f).expect("frame exists");
        let _ = frame.name_lossy();
        assert!(
            frame
                .position(verts - 1)
                .is_some_and(|p| p.iter().all(|c| c.is_finite()))
        );
        let n = frame.normal(verts - 1).expect("normal exists");
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        assert!((len - 1.0).abs() < 1e-5, "normal of length {len}");
    }
    let (mut pa, mut na, mut pb, mut nb) = (
        vec![[0.0; 3]; verts],
        vec![[0.0; 3]; verts],
        vec![[0.0; 3]; verts],
        vec![[0.0; 3]; verts],
    );
    for f in 0..frames.len().min(4) {
        let g = (f + 1) % frames.len();
        m.tween_with_level(skin::SimdLevel::Portable, f, g, 0.375, &mut pa, &mut na)
            .expect("frames exist");
        for level in skin::SimdLevel::ALL {
            m.tween_with_level(level, f, g, 0.375, &mut pb, &mut nb)
                .expect("frames exist");
            assert!(
                pa.iter().chain(&na).flatten().map(|x| x.to_bits()).eq(pb
                    .iter()
                    .chain(&nb)
                    .flatten()
                    .map(|x| x.to_bits())),
                "{level:?} differs from the scalar tween"
            );
        }
    }
    let err = m.tween_with_level(
        skin::SimdLevel::detect(),
        frames.len(),
        0,
        0.0,
        &mut pa,
        &mut na,
    );
    assert!(err.is_err(), "a frame past the last tweens");
}

/// Deep walk of an HMP: every frame meshes to the grid's size with unit normals.
pub fn hmp(h: &Hmp<'_>) {
    // Frames found by index are the frames met in order (the same bytes).
    let frames = h.frames();
    assert_eq!(frames.iter().count(), frames.len());
    for (i, f) in frames.iter().enumerate().take(64) {
        let g = frames.get(i).expect("frame exists");
        assert!(core::ptr::eq(f.name(), g.name()) && f.raw_height(0) == g.raw_height(0));
    }
    assert!(frames.get(frames.len()).is_none());
    let [nx, ny] = h.grid();
    for f in 0..h.frames().len().min(2) {
        let mesh = h.mesh(f).expect("frame exists");
        assert_eq!(mesh.positions.len() as u64, u64::from(nx) * u64::from(ny));
        assert_eq!(
            mesh.triangles.len() as u64,
            2 * u64::from(nx - 1) * u64::from(ny - 1)
        );
        assert!(
            mesh.normals
                .iter()
                .all(|n| ((n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) - 1.0).abs() < 1e-3)
        );
    }
}

/// Samples up to 8 frames of `model` (both interpolations), builds the palette and skins
/// every mesh with the scalar kernel, which must succeed on a validated model, then with the
/// stream and prepared kernels at every SIMD level the CPU has, which must agree with it.
pub fn skin_every_mesh<'a, M: SkeletalMesh<'a>>(
    model: &impl PoseFrames<'a>,
    meshes: impl Iterator<Item = M> + Clone,
) {
    let frames = model.num_frames();
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    for (k, frame) in (0..frames).step_by((frames / 8).max(1)).take(8).enumerate() {
        let interpolation = if k % 2 == 0 {
            Interpolation::Nlerp
        } else {
            Interpolation::Slerp
        };
        pose::sample(
            model,
            frame,
            (frame + 1).min(frames - 1),
            0.5,
            interpolation,
            &mut pose,
        );
        palette.build(model, &pose);
        for mesh in meshes.clone() {
            let n = mesh.num_vertices();
            let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
            skin::scalar(&mesh, &palette, &mut p, &mut q).expect("a validated model skins");
            kernels_agree(&mesh, &palette, &p);
        }
    }
}

/// The stream and prepared kernels at every supported level reproduce the scalar `want`
/// within a rounding bound scaled by the largest term (fuzzed values may be huge, and fused
/// multiply-adds round differently).
fn kernels_agree<'a>(mesh: &impl SkeletalMesh<'a>, palette: &Palette, want: &[[f32; 3]]) {
    use skin::{PreparedMesh, SimdLevel, SkinMatrices, VertexOrder};
    let max_m = palette
        .world
        .iter()
        .flat_map(|m| m.to_cols_array())
        .fold(0.0f32, |a, v| a.max(v.abs()));
    let (mut max_v, mut max_k) = (0.0f32, 0usize);
    for records in mesh.vertices() {
        max_k = max_k.max(records.len());
        for r in records {
            let [a, b, c] = r.origin();
            max_v = [a, b, c, r.influence()]
                .into_iter()
                .fold(max_v, |m, v| m.max(v.abs()));
        }
    }
    let tolerance = 1e-5 * (1.0 + max_m * max_v * 4.0 * max_k as f32);
    let matrices = SkinMatrices::from_palette(palette);
    let prepared = PreparedMesh::new(mesh);
    let n = want.len();
    let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    let check = |got: &[[f32; 3]], what: &str| {
        if !tolerance.is_finite() {
            return;
        }
        for (w, g) in want.iter().flatten().zip(got.iter().flatten()) {
            if w.is_finite() {
                assert!((w - g).abs() <= tolerance, "{what}: {g} vs scalar {w}");
            }
        }
    };
    for level in SimdLevel::ALL.into_iter().filter(|l| l.is_supported()) {
        skin::stream(mesh, &matrices, level, &mut p, &mut q).expect("stream skins");
        check(&p, "stream");
        prepared
            .skin(&matrices, level, VertexOrder::Original, &mut p, &mut q)
            .expect("prepared skins");
        check(&p, "prepared");
    }
}

/// Every accessor of a ZYM view: scenes within the poses, bones and their parents, every pose
/// of every bone finite, vertices on bones with finite bind positions, the runs covering the
/// triangles in order, every triangle's indices vertices, texture coordinates, shader names.
pub fn zym(m: &skelmap_core::zym::Zym<'_>) {
    use skelmap_core::pose::BindPoseMesh;
    let (bones, verts, poses) = (m.num_bones(), m.num_vertices(), m.num_poses());
    assert!(bones >= 1 && verts >= 1 && poses >= 1 && m.num_triangles() >= 1);
    assert_eq!(m.data().len(), m.header().filesize.get() as usize);
    for s in m.scenes() {
        assert!((s.start() as usize) < poses);
        assert!(s.start() as usize + s.length() as usize <= poses);
        assert!(s.framerate().is_finite() && s.framerate() >= 0.0);
        let _ = (s.name(), s.looped(), s.raw());
    }
    assert!(m.scene(m.scenes().len()).is_none());
    for (i, b) in m.bones().iter().enumerate() {
        assert!(b.parent.get() >= -1 && (b.parent.get() as i64) < i as i64);
        assert!(m.bind_world(i).is_some());
    }
    for p in [0, poses - 1] {
        for b in 0..bones {
            let matrix = m.pose(p, b).expect("pose exists");
            assert!(matrix.iter().flatten().all(|v| v.is_finite()));
            let (q, t) = skelmap_core::pose::PoseFrames::bone_pose(m, p, b).expect("bone pose");
            assert!(t.is_finite() && q.is_finite());
        }
        assert!(m.pose(p, bones).is_none());
    }
    assert!(m.pose(poses, 0).is_none());
    for v in 0..verts {
        let (bone, origin) = m.vertex(v).expect("vertex exists");
        assert!((bone as usize) < bones && origin.iter().all(|c| c.is_finite()));
        let _ = m.texcoord(v).expect("texcoord exists");
        let bind = (&m).bind_vertex(v).expect("bind vertex exists");
        assert_eq!(bind.influences[0], Some((bone as u16, 1.0)));
    }
    assert!(m.vertex(verts).is_none() && m.texcoord(verts).is_none());
    let mut next = 0u32;
    for (i, run) in m.runs().iter().enumerate() {
        assert_eq!(run.first_triangle, next);
        next += run.num_triangles;
        assert!(m.shader_name(i).is_some());
    }
    assert_eq!(next as usize, m.num_triangles());
    assert_eq!(m.runs().len(), m.num_shaders());
    for t in 0..m.num_triangles() {
        let tri = m.triangle(t).expect("triangle exists");
        assert!(tri.iter().all(|&i| (i as usize) < verts));
        let stored = m.stored_triangle(t).expect("stored triangle exists");
        assert_eq!([stored[2], stored[1], stored[0]], tri);
    }
    assert!(m.triangle(m.num_triangles()).is_none());
    assert_eq!(m.trizone().len(), m.num_triangles());
}

/// Every accessor of a Half-Life studio file: bones with parents before them, sequences,
/// their events and groups, every model of every body part with its meshes, textures with
/// their pixels and palettes, the skin table, attachments on bones.
pub fn hl1(m: &skelmap_core::hl1::Hl1<'_>) {
    let bones = m.num_bones();
    for (i, b) in m.bones().iter().enumerate() {
        assert!(b.parent.get() >= -1 && (b.parent.get() as i64) < i as i64);
        let (q, t) = m.default_pose(i).expect("default pose");
        assert!(q.is_finite() && t.is_finite());
    }
    assert!(m.default_pose(bones).is_none());
    for i in 0..m.sequences().len() {
        assert!(m.events(i).is_some());
        let s = &m.sequences()[i];
        assert!((s.seqgroup.get() as usize) < m.seqgroups().len());
    }
    assert!(m.events(m.sequences().len()).is_none());
    for (p, part) in m.bodyparts().iter().enumerate() {
        for c in 0..part.nummodels.get() as usize {
            let model = m.model(p, c).expect("model exists");
            let _ = m.model_meshes(model);
        }
        assert!(m.model(p, part.nummodels.get() as usize).is_none());
    }
    for i in 0..m.textures().len() {
        let (pixels, _) = m.texture_pixels(i).expect("texture pixels");
        let t = &m.textures()[i];
        assert_eq!(
            pixels.len(),
            t.width.get() as usize * t.height.get() as usize
        );
    }
    for f in 0..m.num_skin_families() {
        for r in 0..m.num_skinref() {
            assert!(m.skin_texture(f, r).expect("skin") < m.textures().len());
        }
    }
    for a in m.attachments() {
        assert!((a.bone.get() as usize) < bones);
    }
    hl1_mesh_table(m);
    // A body value showing each of a part's first few models: the engine's pick is one of
    // the part's models, and the mesh made of them is as consistent as body 0's, or passes
    // a limit.
    for (p, part) in m.bodyparts().iter().enumerate() {
        let models = part.nummodels.get().max(0) as u32;
        let base = u32::try_from(part.base.get()).unwrap_or(1).max(1);
        for c in 0..models.min(4) {
            let body = base.saturating_mul(c);
            assert!(m.body_model(p, body).expect("body part") < models.max(1) as usize);
            match m.with_body(body, &skelmap_core::Limits::DEFAULT) {
                Ok(shown) => {
                    assert_eq!(shown.body(), body);
                    hl1_mesh_table(&shown);
                }
                Err(e) => assert!(matches!(e, skelmap_core::Error::Limit { .. }), "{e}"),
            }
        }
    }
}

/// A Half-Life model's table of shown meshes: each starts where the one before it ends, and
/// together they are the model's vertices and triangles.
fn hl1_mesh_table(m: &skelmap_core::hl1::Hl1<'_>) {
    let mut next = (0, 0);
    for info in m.meshes() {
        assert_eq!((info.first_vertex, info.first_triangle), next);
        next = (
            info.first_vertex + info.num_vertices,
            info.first_triangle + info.num_triangles,
        );
    }
    assert_eq!(next, (m.num_vertices() as u32, m.num_triangles() as u32));
}

/// A Half-Life model with its companions: the model file's accessors, every frame's pose of
/// every bone finite (with its controllers set past their ranges too), every vertex on a
/// bone with a finite bind position where the stored translations and vertices are far from
/// `f32`'s range (see [`hl1_near_f32_limit`]), every triangle's indices vertices, every
/// texture coordinate finite.
pub fn hl1_pair(p: &skelmap_core::hl1::Pair<'_>) {
    use skelmap_core::pose::BindPoseMesh;
    use skelmap_core::view::MeshView;
    hl1(p.model());
    if let Some(t) = p.texture_file() {
        hl1(t);
    }
    let bones = p.model().num_bones();
    let frames = PoseFrames::num_frames(p);
    for f in [0, frames / 2, frames.saturating_sub(1)] {
        if f < frames {
            for b in 0..bones {
                let (q, t) = p.bone_pose(f, b).expect("bone pose");
                assert!(q.is_finite() && t.is_finite());
            }
        }
    }
    assert!(p.bone_pose(frames, 0).is_none());
    // Controllers at settings past every range: clamped or wrapped, every pose still finite.
    let controls = skelmap_core::hl1::Controls {
        values: [1e30, -1e30, 725.5, -0.25, 1e9],
    };
    let controlled = p.controlled(controls);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for f in [0, frames / 2, frames.saturating_sub(1)] {
        if f < frames {
            a.clear();
            b.clear();
            controlled.frame_pair_poses_into(f, (f + 1) % frames, &mut a, &mut b);
            assert!(
                a.iter()
                    .chain(&b)
                    .all(|(q, t)| q.is_finite() && t.is_finite())
            );
        }
    }
    let verts = p.model().num_vertices();
    let near_limit = hl1_near_f32_limit(p.model());
    for v in 0..verts {
        let bind = (&p).bind_vertex(v).expect("bind vertex");
        assert!(bind.position.is_finite() || near_limit);
        let (bone, _) = bind.influences[0].expect("one influence");
        assert!(usize::from(bone) < bones);
        assert!(
            (&p).vertex_texcoord(v)
                .expect("texcoord")
                .iter()
                .all(|c| c.is_finite())
        );
    }
    assert!((&p).bind_vertex(verts).is_none());
    for t in 0..p.model().num_triangles() {
        let tri = (&p).triangle(t).expect("triangle");
        assert!(tri.iter().all(|&i| (i as usize) < verts));
    }
    assert!((&p).triangle(p.model().num_triangles()).is_none());
}

/// Whether a bone's default translation or a stored vertex of any studio model exceeds
/// 1e30 in a coordinate. Below that a bind position is finite: it is a vertex moved through a
/// chain of bones' rotations (entries at most 1, up to rounding) and translations, and even
/// 100 000 bones keep a coordinate below about 100 000 · 3 · 2 · 1e30 + 3 · 1e30 < 1e36, far
/// from `f32::MAX`; above it, the chain may overflow, as any chain of transforms of such
/// values does, and a non-finite position is what the arithmetic gives.
pub fn hl1_near_f32_limit(m: &skelmap_core::hl1::Hl1<'_>) -> bool {
    const FAR: f32 = 1e30;
    let bones = m
        .bones()
        .iter()
        .any(|b| b.value[..3].iter().any(|v| v.get().abs() > FAR));
    let vertices = m.bodyparts().iter().enumerate().any(|(part, bodypart)| {
        (0..usize::try_from(bodypart.nummodels.get()).unwrap_or(0)).any(|choice| {
            let Some(model) = m.model(part, choice) else {
                return false;
            };
            let (at, n) = (model.vertindex.get(), model.numverts.get());
            let (Ok(at), Ok(n)) = (usize::try_from(at), usize::try_from(n)) else {
                return false;
            };
            m.data()
                .get(at..)
                .and_then(|rest| rest.get(..12 * n))
                .is_some_and(|bytes| {
                    bytes
                        .chunks_exact(4)
                        .any(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]).abs() > FAR)
                })
        })
    });
    bones || vertices
}

/// `data` as Enemy Territory's text files, split at NULs: a character file
/// (`characters/c.char`), the animation group it may name (`a/group.anim`) and the clips the
/// group may include (`a/body.aninc`), beside a built MDM (`m/body.mdm`) and MDX
/// (`a/body.mdx`), and two more MDXs a group may name after it: `a/more.mdx` (the same bones
/// at other distances, two frames) and `a/other.mdx` (a bone more). Opened through an
/// in-memory resolver as ET finds the MDX (and `a/more.mdx` alone, as ET finds its clips);
/// each model that opens is walked; `true` when the mesh opened.
pub fn et_character(data: &[u8]) -> bool {
    static FILES: std::sync::OnceLock<[Vec<u8>; 4]> = std::sync::OnceLock::new();
    let [mdm, mdx, more, other] = FILES.get_or_init(|| {
        let triangle = skelmap_core::mdm::Builder::triangle();
        let (mdm, mdx) = triangle.write();
        let mut more = triangle.clone();
        more.bones[1].parent_dist = 6.0;
        more.frames.truncate(2);
        let mut other = triangle;
        other.bones.push(other.bones[1].clone());
        [mdm, mdx, more.write_mdx(), other.write_mdx()]
    });
    let mut parts = data.splitn(3, |&b| b == 0);
    let mut files = std::collections::HashMap::new();
    files.insert("m/body.mdm".to_string(), &mdm[..]);
    files.insert("a/body.mdx".to_string(), &mdx[..]);
    files.insert("a/more.mdx".to_string(), &more[..]);
    files.insert("a/other.mdx".to_string(), &other[..]);
    for path in ["characters/c.char", "a/group.anim", "a/body.aninc"] {
        files.insert(path.to_string(), parts.next().unwrap_or_default());
    }
    // `a/more.mdx` alone, with no `.aninc` beside it: its clips from a group naming it.
    if let Ok(alone) = Model::resolve(&files, "a/more.mdx", &skelmap_core::Limits::DEFAULT) {
        let frames = alone.num_frames() as u64;
        assert!((alone.clips().iter()).all(|c| u64::from(c.first) + u64::from(c.count) <= frames));
        model(&alone);
    }
    match Model::resolve(&files, "m/body.mdm", &skelmap_core::Limits::DEFAULT) {
        Ok(opened) => {
            if let Some(pair) = opened.as_mdm() {
                let owned: Vec<_> = pair.animation_files().map(|m| m.own_frames()).collect();
                assert_eq!(owned.first().map(|r| r.start), Some(0));
                assert!(owned.windows(2).all(|w| w[0].end == w[1].start));
                assert_eq!(owned.last().map(|r| r.end), Some(opened.num_frames()));
            }
            model(&opened);
            true
        }
        Err(_) => false,
    }
}

/// Every accessor of an Enemy Territory MDM on its own: surfaces (vertices, triangles,
/// collapse map, bone references, the records made from the weights, every level of
/// detail's triangles) and tags.
pub fn mdm(m: &skelmap_core::mdm::Mdm<'_>) {
    let _ = (
        m.name(),
        m.lod_scale(),
        m.lod_bias(),
        m.header(),
        m.max_bone(),
    );
    let mut lod = Vec::new();
    for s in m.surfaces() {
        let verts = s.num_vertices();
        assert_eq!(s.vertices().len(), verts);
        assert_eq!(s.collapse_map().len(), verts);
        assert!(s.collapse_map().all(|c| c < verts));
        assert!(s.bone_references().all(|b| Some(b) <= m.max_bone()));
        for t in 0..s.num_triangles() {
            let v = s.triangle(t).expect("triangle exists");
            assert!(v.iter().all(|&i| (i as usize) < verts));
        }
        assert!(s.min_lod() <= verts);
        for fraction in [0.0, 0.5, 1.0, f32::NAN] {
            let keep = s.lod_vertices(fraction);
            assert!(keep <= verts);
            s.lod_triangles(keep, &mut lod);
            assert!(lod.len() <= s.num_triangles());
            assert!(lod.iter().flatten().all(|&i| (i as usize) < keep.max(1)));
        }
        let _ = (s.name_lossy(), s.shader_name(), s.offset(), s.header());
        let records = s.records();
        assert_eq!(records.num_vertices(), verts);
        for ((vertex, stored), i) in s.vertices().zip(records.vertices()).zip(0..) {
            assert_eq!(vertex.weights.len(), stored.len());
            let found = s.vertex(i).expect("vertex exists");
            assert!(core::ptr::eq(found.raw, vertex.raw));
            let _ = (vertex.normal(), vertex.tex_coords());
        }
        assert!(s.vertex(verts).is_none());
    }
    for i in 0..m.num_tags() {
        let tag = m.tag(i).expect("tag exists");
        assert!(Some(tag.bone()) <= m.max_bone());
        let _ = (
            tag.name(),
            tag.axis(),
            tag.offset_in_bone(),
            tag.offset(),
            tag.raw(),
        );
        assert!(tag.bone_references().all(|b| Some(b) <= m.max_bone()));
    }
    assert!(m.tag(m.num_tags()).is_none());
}

/// Every accessor of an Enemy Territory MDX: frames, bones, their placement (model space
/// and parent-relative) at the first and last frame, with the torso at either.
pub fn mdx(m: &skelmap_core::mdm::Mdx<'_>) {
    let (frames, bones) = (m.num_frames(), m.num_bones());
    assert!(frames >= 1 && bones >= 1);
    assert!(m.torso_parent().is_none_or(|t| t < bones));
    skeleton(m.skeleton_bones());
    let _ = (m.name(), m.header(), m.bones());
    for f in [0, frames - 1] {
        let frame = m.frame(f).expect("frame exists");
        assert_eq!(frame.bones.len(), bones);
        let _ = (
            frame.bounds(),
            frame.local_origin(),
            frame.radius(),
            frame.parent_offset(),
        );
        for b in 0..bones {
            for torso in [0, frames - 1] {
                let placed = m.bone_transform(f, torso, b).expect("bone placed");
                // A huge torso weight or distance may overflow: placed, never a panic.
                let _ = placed;
            }
            let (q, _) = m.bone_pose(f, b).expect("bone pose");
            assert!(q.is_finite(), "a rotation that is not one is the identity");
        }
        assert!(m.bone_transform(f, f, bones).is_none());
    }
    assert!(m.frame(frames).is_none() && m.bone_pose(frames, 0).is_none());
    // Legs and torso at their own pairs: one pose a bone, rotations made finite; a frame
    // past the skeleton's refused.
    let (last, mut poses) = (frames - 1, Vec::new());
    for (legs, torso) in [
        ((0, last, 0.5), (last, 0, 0.25)),
        ((last, last, 0.0), (0, last, 1.0)),
        ((0, last, 0.0), (0, 0, 0.75)),
    ] {
        assert!(m.legs_torso_poses_into(legs, torso, &mut poses));
        assert_eq!(poses.len(), bones);
        assert!(poses.iter().all(|(q, _)| q.is_finite()));
    }
    assert!(!m.legs_torso_poses_into((0, 0, 0.5), (0, frames, 0.5), &mut poses));
}

/// An MDM with its MDX (and a group's other animation files): all walked, every bone the mesh
/// names in the skeleton, every tag placed at the first and last frame.
pub fn mdm_pair(p: &skelmap_core::mdm::Pair<'_>) {
    mdm(p.mdm());
    // Every animation file reaches every frame, placing them with its bones.
    for file in p.animation_files() {
        mdx(file);
        assert_eq!(file.num_frames(), p.mdx().num_frames());
    }
    assert!(p.mdm().max_bone().is_none_or(|b| b < p.mdx().num_bones()));
    let frames = p.mdx().num_frames();
    for i in 0..p.mdm().num_tags() {
        for f in [0, frames - 1] {
            let _ = p.tag_pose(f, i).expect("tag placed");
            let _ = p.tag_at(f, 0, 0.5, i).expect("tag placed");
        }
    }
    assert!(p.tag_pose(frames, 0).is_none());
}

/// Every accessor of a PSK view: each wedge's point, texture coordinate, colour and extra
/// sets; each face's wedges and material; each material's name; each bone's parent before it
/// and rest pose finite; each point's gathered influences (at most 8, on bones, summing to 1).
pub fn psk(m: &skelmap_core::psk::Psk<'_>) {
    use skelmap_core::pose::BindPoseMesh;
    let (points, wedges, bones) = (m.num_points(), m.num_wedges(), m.num_bones());
    assert!(bones >= 1);
    for w in 0..wedges {
        assert!((m.wedge_point(w).expect("wedge") as usize) < points);
        let _ = (m.texcoord(w).expect("texcoord"), m.color(w));
        for set in 0..skelmap_core::psk::MAX_EXTRA_UVS {
            assert_eq!(
                m.extra_texcoord(set, w).is_some(),
                m.has_extra_texcoords(set)
            );
        }
        let v = (&m).bind_vertex(w).expect("bind vertex");
        assert!(v.position.is_finite() && v.normal.is_finite());
    }
    assert!(m.wedge_point(wedges).is_none());
    for f in 0..m.num_faces() {
        let tri = m.triangle(f).expect("face");
        assert!(tri.iter().all(|&w| (w as usize) < wedges));
        assert!(m.face_material(f).expect("material") < m.num_materials());
    }
    assert!(m.triangle(m.num_faces()).is_none());
    for i in 0..m.num_materials() {
        let _ = m.material_name(i).expect("material name");
    }
    for b in 0..bones {
        let (q, t) = m.rest_pose(b).expect("rest pose");
        assert!(q.is_finite() && t.is_finite());
        let parent = m.bones()[b].parent_index.get();
        assert!(b == 0 || (parent >= 0 && (parent as usize) < b));
    }
    for p in 0..points {
        assert!(m.point(p).expect("point").iter().all(|c| c.is_finite()));
        let influences = m.point_influences(p);
        assert!(!influences.is_empty() && influences.len() <= 8);
        assert!(
            influences
                .iter()
                .all(|&(b, w)| (b as usize) < bones && w > 0.0)
        );
        let sum: f32 = influences.iter().map(|i| i.1).sum();
        assert!((sum - 1.0).abs() < 1e-3, "weights sum to {sum}");
        let _ = m.normal(p);
    }
    let _ = m.weight_findings();
}

/// Every accessor of a PSA view: bones with parents before them, each sequence within the
/// frames, every key finite.
pub fn psa(a: &skelmap_core::psk::Psa<'_>) {
    let (bones, frames) = (a.num_bones(), a.num_frames());
    assert!(bones >= 1);
    for s in a.sequences() {
        assert!(s.first_frame() as usize + s.num_frames() as usize <= frames);
        assert!(s.rate() > 0.0 && s.rate().is_finite());
        let _ = (s.name(), s.group(), s.raw());
    }
    assert!(a.sequence(a.num_sequences()).is_none());
    for f in 0..frames {
        for b in 0..bones {
            let (q, t) = a.key(f, b).expect("key");
            assert!(q.is_finite() && t.is_finite());
            let _ = a.scale(f, b);
        }
        assert!(a.key(f, bones).is_none());
    }
    assert!(a.key(frames, 0).is_none());
    for b in 0..bones {
        let _ = a.bone_name(b).expect("bone name");
    }
}
