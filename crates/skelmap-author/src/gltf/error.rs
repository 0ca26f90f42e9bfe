//! What can go wrong while importing glTF: one variant per glTF structure, each naming the
//! index and the field at fault.

use std::path::PathBuf;

/// Why a glTF file was refused.
///
/// Every variant that points into the document names the structure (`accessors`, `nodes` …),
/// its index in the file and the JSON field at fault, so a message reads like a path:
/// `accessors[3].count: …`.
///
/// ```
/// use skelmap_author::gltf::{self, Error, Options};
/// // A node that is its own child.
/// let json = br#"{"asset":{"version":"2.0"},"nodes":[{"children":[0]}]}"#;
/// let err = gltf::from_slice(json, None, &Options::default()).unwrap_err();
/// assert!(matches!(err, Error::NodeCycle { node: 0 }));
/// assert_eq!(err.to_string(), "nodes[0] is its own ancestor: the node tree has a cycle");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file (the glTF itself, an external buffer or image) could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The binary container (`.glb`) is malformed.
    #[error("GLB container, byte {offset}: {problem}")]
    Glb {
        /// Where in the file.
        offset: u64,
        /// What is wrong.
        problem: String,
    },
    /// The JSON is not a glTF document (syntax, or a field of the wrong kind).
    #[error("glTF JSON: {0}")]
    Json(String),
    /// The file requires an extension this importer does not implement.
    #[error("extensionsRequired: {0:?} is not supported")]
    Extension(String),
    /// An [`Options`](super::Options) field is unusable.
    #[error("options.{field}: {problem}")]
    Options {
        /// The field.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// A buffer: its URI, or its declared length against its data.
    #[error("buffers[{index}].{field}: {problem}")]
    Buffer {
        /// The buffer.
        index: usize,
        /// `uri` or `byteLength`.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// A buffer view reaching outside its buffer, or naming none.
    #[error("bufferViews[{index}].{field}: {problem}")]
    BufferView {
        /// The buffer view.
        index: usize,
        /// `buffer`, `byteOffset`, `byteLength` or `byteStride`.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// An accessor: missing, of the wrong kind for its use, or reaching outside its view.
    #[error("accessors[{index}].{field}: {problem}")]
    Accessor {
        /// The accessor.
        index: usize,
        /// `index` (it does not exist), `type`, `componentType`, `bufferView`,
        /// `byteOffset`, `count` or `sparse`.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// A NaN or infinite number where only finite ones make sense (positions, inverse bind
    /// matrices, animation times and values, morph target positions).
    #[error("accessors[{accessor}] element {element}, read as {used_as}, is not finite")]
    NonFinite {
        /// The accessor.
        accessor: usize,
        /// The element (vertex, key, matrix) holding it.
        element: usize,
        /// What the accessor was read as (`POSITION`, `inverseBindMatrices` …).
        used_as: &'static str,
    },
    /// A mesh primitive: attributes that disagree, indices past the vertices, a missing
    /// material …
    #[error("meshes[{index}].primitives[{primitive}].{field}: {problem}")]
    Mesh {
        /// The mesh.
        index: usize,
        /// The primitive in it.
        primitive: usize,
        /// The attribute (`POSITION`, `JOINTS_n` …) or field (`indices`, `material`,
        /// `mode`, `targets`).
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// A node: a child, mesh or skin that does not exist, a transform that is not finite.
    #[error("nodes[{index}].{field}: {problem}")]
    Node {
        /// The node.
        index: usize,
        /// The field.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// The node tree has a cycle through `node` (the smallest index on it).
    #[error("nodes[{node}] is its own ancestor: the node tree has a cycle")]
    NodeCycle {
        /// A node on the cycle.
        node: usize,
    },
    /// A node listed as a child of two nodes.
    #[error("nodes[{node}] is a child of both nodes[{first}] and nodes[{second}]")]
    NodeParents {
        /// The child.
        node: usize,
        /// Its first parent.
        first: usize,
        /// Its second parent.
        second: usize,
    },
    /// A scene naming a node that does not exist, or a missing default scene.
    #[error("scenes[{index}].{field}: {problem}")]
    Scene {
        /// The scene.
        index: usize,
        /// The field.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// A skin: joints that do not exist or repeat, inverse bind matrices too few or
    /// singular.
    #[error("skins[{index}].{field}: {problem}")]
    Skin {
        /// The skin.
        index: usize,
        /// `joints`, `inverseBindMatrices` or `skeleton`.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// An animation sampler: times out of order, an output of the wrong size.
    #[error("animations[{animation}].samplers[{sampler}].{field}: {problem}")]
    Sampler {
        /// The animation.
        animation: usize,
        /// The sampler in it.
        sampler: usize,
        /// `input`, `output` or `interpolation`.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// An animation channel naming a sampler or node that does not exist.
    #[error("animations[{animation}].channels[{channel}].{field}: {problem}")]
    Channel {
        /// The animation.
        animation: usize,
        /// The channel in it.
        channel: usize,
        /// `sampler` or `target.node`.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// A material: a colour that is not finite, a texture that does not exist.
    #[error("materials[{index}].{field}: {problem}")]
    Material {
        /// The material.
        index: usize,
        /// The field.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// A texture naming an image that does not exist.
    #[error("textures[{index}].{field}: {problem}")]
    Texture {
        /// The texture.
        index: usize,
        /// The field.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// An image: no data, a refused URI, or data that does not decode.
    #[error("images[{index}].{field}: {problem}")]
    Image {
        /// The image.
        index: usize,
        /// `uri`, `bufferView`, `mimeType` or `data`.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// The file would need more than one of the documented limits allows (see the
    /// `MAX_*` constants of [`gltf`](super)).
    #[error("too many {what}: {found} (at most {limit})")]
    Limit {
        /// What was counted.
        what: &'static str,
        /// How many the file needs.
        found: u64,
        /// The limit.
        limit: u64,
    },
}

/// Results of this module.
pub type Result<T> = core::result::Result<T, Error>;
