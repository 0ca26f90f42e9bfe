//! assimp as an oracle for the engine formats: its OBJ output (`corpus-engines/oracle`), a
//! small C program that loads any frame with a keyframe option
//! (`AI_CONFIG_IMPORT_MD2_KEYFRAME`, `…_MD3_KEYFRAME`, `…_MDC_KEYFRAME`), and one that skins
//! an MD5 mesh at a frame of its animation as assimp's scene describes it, compared with
//! ours as sets of points.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The `v` lines of an OBJ as points.
pub fn obj_points(text: &str) -> Vec<[f32; 3]> {
    text.lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let f: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [f[0], f[1], f[2]]
        })
        .collect()
}

/// Points rounded to a grid of `cell`, each with its count.
fn cells(points: &[[f32; 3]], cell: f32) -> HashMap<[i64; 3], usize> {
    let mut map = HashMap::new();
    for p in points {
        *map.entry(p.map(|c| (c / cell).round() as i64)).or_default() += 1;
    }
    map
}

fn near(map: &HashMap<[i64; 3], usize>, p: [f32; 3], cell: f32) -> bool {
    let c = p.map(|c| (c / cell).round() as i64);
    (-1..=1).any(|dx| {
        (-1..=1).any(|dy| (-1..=1).any(|dz| map.contains_key(&[c[0] + dx, c[1] + dy, c[2] + dz])))
    })
}

/// Whether `ours` and `theirs` are equal as sets of points within 1e-3 of the largest
/// coordinate: each point of one has a point of the other in a neighbouring cell of that
/// size. `Err` says which side has a point the other lacks.
pub fn same_points(ours: &[[f32; 3]], theirs: &[[f32; 3]]) -> Result<(), &'static str> {
    let size = ours
        .iter()
        .chain(theirs)
        .flatten()
        .fold(0.0f32, |m, c| m.max(c.abs()));
    let cell = 1e-3 * size;
    let (mine, other) = (cells(ours, cell), cells(theirs, cell));
    if !ours.iter().all(|p| near(&other, *p, cell)) {
        return Err("a vertex assimp lacks");
    }
    if !theirs.iter().all(|p| near(&mine, *p, cell)) {
        return Err("a vertex we lack");
    }
    Ok(())
}

/// [`same_points`], or a failure naming `what`.
pub fn assert_same_points(ours: &[[f32; 3]], theirs: &[[f32; 3]], what: &str) {
    if let Err(e) = same_points(ours, theirs) {
        panic!("{what}: {e}");
    }
}

/// A C program built against libassimp for one caller, in a scratch folder of its own that is
/// removed with the program when this drops (also when the test panics). Each test builds its
/// own, so no test runs a program another is still writing.
#[derive(Debug)]
pub struct Tool {
    /// Keeps the folder, and the program in it, until the tool drops.
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Tool {
    /// The program.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Compiles `source` as `<stem>.c` against libassimp in a scratch folder named after
/// `folder`: the program, or `None` (a skip, a failure under `SKELMAP_REQUIRE_ASSIMP`) where
/// `cc` or libassimp is missing.
fn compile_assimp_tool(folder: &str, stem: &str, source: &str) -> Option<Tool> {
    let dir = tempfile::Builder::new()
        .prefix(&format!("skelmap-assimp-{folder}-"))
        .tempdir()
        .unwrap();
    let (file, tool) = (dir.path().join(format!("{stem}.c")), dir.path().join(stem));
    std::fs::write(&file, source).unwrap();
    let built = std::process::Command::new("cc")
        .arg(&file)
        .arg("-o")
        .arg(&tool)
        .arg("-lassimp")
        .output()
        .is_ok_and(|o| o.status.success());
    if !built {
        assert!(
            std::env::var_os("SKELMAP_REQUIRE_ASSIMP").is_none(),
            "cc and libassimp are needed and SKELMAP_REQUIRE_ASSIMP is set"
        );
        eprintln!("SKIPPED: cannot build a program against libassimp");
        return None;
    }
    Some(Tool {
        _dir: dir,
        path: tool,
    })
}

/// A C program that loads a model with assimp's keyframe option `option`
/// (`AI_CONFIG_IMPORT_MD2_KEYFRAME`, …) set to its second argument and prints every vertex of
/// every mesh as stored (no node transform): built with the system's `cc` and `libassimp`,
/// `None` (a skip) where either is missing, a failure then when `SKELMAP_REQUIRE_ASSIMP` is
/// set.
pub fn keyframe_tool(option: &str) -> Option<Tool> {
    let source = format!(
        r#"
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/scene.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {{
    if (argc != 3) return 2;
    struct aiPropertyStore *props = aiCreatePropertyStore();
    aiSetImportPropertyInteger(props, {option}, atoi(argv[2]));
    const struct aiScene *scene = aiImportFileExWithProperties(argv[1], 0, NULL, props);
    if (!scene) {{ fprintf(stderr, "%s\n", aiGetErrorString()); return 1; }}
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {{
        const struct aiMesh *mesh = scene->mMeshes[m];
        for (unsigned v = 0; v < mesh->mNumVertices; v++)
            printf("%.9g %.9g %.9g\n", mesh->mVertices[v].x, mesh->mVertices[v].y,
                   mesh->mVertices[v].z);
    }}
    aiReleaseImport(scene);
    aiReleasePropertyStore(props);
    return 0;
}}
"#
    );
    compile_assimp_tool(&option.to_ascii_lowercase(), "keyframe", &source)
}

/// What assimp loads as frame `frame` of `file` through `tool`: every vertex as stored.
pub fn assimp_frame(tool: &Tool, file: &Path, frame: usize) -> Vec<[f32; 3]> {
    let out = std::process::Command::new(tool.path())
        .arg(file)
        .arg(frame.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}: {out:?}", file.display());
    obj_points(
        &String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| format!("v {l}\n"))
            .collect::<String>(),
    )
}

/// The MD5 frame program ([`md5_frame_tool`]): loads a mesh (and the `<stem>.md5anim` beside
/// it, which assimp reads), takes each animated node's key `frame`, builds every node's global
/// transform down from the root, and skins each mesh's vertices with assimp's bones (global
/// transform times offset matrix, weighted); prints every vertex of every mesh.
const MD5_FRAME_C: &str = r#"#include <assimp/cimport.h>
#include <assimp/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static const struct aiAnimation *anim;
static unsigned frame;
static struct aiMatrix4x4 local(const struct aiNode *n) {
    for (unsigned c = 0; anim && c < anim->mNumChannels; c++) {
        const struct aiNodeAnim *ch = anim->mChannels[c];
        if (strcmp(ch->mNodeName.data, n->mName.data) != 0) continue;
        unsigned p = frame < ch->mNumPositionKeys ? frame : ch->mNumPositionKeys - 1;
        unsigned r = frame < ch->mNumRotationKeys ? frame : ch->mNumRotationKeys - 1;
        struct aiVector3D one = {1, 1, 1};
        struct aiMatrix4x4 m;
        aiMatrix4FromScalingQuaternionPosition(&m, &one, &ch->mRotationKeys[r].mValue,
                                               &ch->mPositionKeys[p].mValue);
        return m;
    }
    return n->mTransformation;
}
static struct aiMatrix4x4 global(const struct aiNode *n) {
    struct aiMatrix4x4 m = local(n);
    for (const struct aiNode *p = n->mParent; p; p = p->mParent) {
        struct aiMatrix4x4 l = local(p);
        aiMultiplyMatrix4(&l, &m);
        m = l;
    }
    return m;
}
static const struct aiNode *find(const struct aiNode *n, const char *name) {
    if (strcmp(n->mName.data, name) == 0) return n;
    for (unsigned i = 0; i < n->mNumChildren; i++) {
        const struct aiNode *f = find(n->mChildren[i], name);
        if (f) return f;
    }
    return NULL;
}
int main(int argc, char **argv) {
    if (argc != 3) return 2;
    const struct aiScene *scene = aiImportFile(argv[1], 0);
    if (!scene) { fprintf(stderr, "%s\n", aiGetErrorString()); return 1; }
    anim = scene->mNumAnimations ? scene->mAnimations[0] : NULL;
    if (!anim) { fprintf(stderr, "no animation\n"); return 1; }
    frame = (unsigned)atoi(argv[2]);
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        struct aiVector3D *out = calloc(mesh->mNumVertices, sizeof *out);
        for (unsigned b = 0; b < mesh->mNumBones; b++) {
            const struct aiBone *bone = mesh->mBones[b];
            const struct aiNode *node = find(scene->mRootNode, bone->mName.data);
            if (!node) { fprintf(stderr, "no node %s\n", bone->mName.data); return 1; }
            struct aiMatrix4x4 skin = global(node);
            aiMultiplyMatrix4(&skin, &bone->mOffsetMatrix);
            for (unsigned w = 0; w < bone->mNumWeights; w++) {
                struct aiVector3D v = mesh->mVertices[bone->mWeights[w].mVertexId];
                aiTransformVecByMatrix4(&v, &skin);
                float k = bone->mWeights[w].mWeight;
                struct aiVector3D *o = &out[bone->mWeights[w].mVertexId];
                o->x += k * v.x; o->y += k * v.y; o->z += k * v.z;
            }
        }
        for (unsigned v = 0; v < mesh->mNumVertices; v++)
            printf("%.9g %.9g %.9g\n", out[v].x, out[v].y, out[v].z);
        free(out);
    }
    aiReleaseImport(scene);
    return 0;
}
"#;

/// The MD5 frame program, built for the caller ([`keyframe_tool`]'s rules: `None` without
/// `cc` and `libassimp`, a failure then when `SKELMAP_REQUIRE_ASSIMP` is set).
pub fn md5_frame_tool() -> Option<Tool> {
    compile_assimp_tool("md5", "frame", MD5_FRAME_C)
}

/// The `assimp` command, if installed (the `assimp-utils` package); CI requires it.
pub fn assimp() -> Option<PathBuf> {
    let found = std::process::Command::new("assimp")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("SKELMAP_REQUIRE_ASSIMP").is_none(),
            "assimp is not installed and SKELMAP_REQUIRE_ASSIMP is set"
        );
        eprintln!("SKIPPED: the assimp command is not installed");
        return None;
    }
    Some("assimp".into())
}
