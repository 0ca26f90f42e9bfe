//! PNG previews: a small z-buffered, flat-shaded rasteriser with an orthographic camera
//! fitted to the posed bounds.
//!
//! By default the camera looks at the model's front from its right and above: from
//! direction `(1, 0.5, 0.7)` in `+Y`-up terms for a model facing `+X` (Quake's lineage, turned
//! to `+Y` up first), turned for formats that face elsewhere (MS3D `−Z`, IQM and glTF `+Z`);
//! a [`View`] turns it further and sets the background. Every triangle is drawn from both sides with one colour:
//! its material's colour, times its skin's texel at the triangle's centre when it has one,
//! times `0.25 + 0.75 · |n · l|` for its face normal `n` and a light over the viewer's
//! shoulder. No anti-aliasing: the image is a preview, not a render.

use glam::Vec3;

use crate::{Error, Result};
use skelmap_core::asset::{Asset, Image};

/// Most pixels one image may have (64 MiB of RGBA).
pub const MAX_PIXELS: u64 = 1 << 24;

/// Most pixels the triangles of one image may test: their bounds, clipped to their cells,
/// summed (2 Gi, seconds of rasterising). Counted before anything is drawn: a model of many
/// triangles each spanning the image (drawn over itself) is refused, not drawn for hours.
pub const MAX_PIXEL_TESTS: u64 = 1 << 31;

/// The preview's default background, opaque: a mid grey, so that dark models (Quake's
/// palette skins) and light ones both stand out.
pub const BACKGROUND: [u8; 4] = [128, 134, 144, 255];

const VIEW: Vec3 = Vec3::new(1.0, 0.5, 0.7);
const FILL: f32 = 0.9;

/// How a preview is seen: the camera's direction and the background.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Degrees the camera turns about the vertical axis from the default direction,
    /// counter-clockwise seen from above (so 180 shows the other side).
    pub yaw: f32,
    /// Degrees above the horizon the camera looks from (−89 to 89; below 0 from underneath).
    pub pitch: f32,
    /// The background colour, RGBA.
    pub background: [u8; 4],
}

impl View {
    /// The default view's elevation: that of the direction `(1, 0.5, 0.7)`, about 22.3°.
    #[must_use]
    pub fn default_pitch() -> f32 {
        (VIEW.y / VIEW.length()).asin().to_degrees()
    }

    /// The direction from an asset facing `front` towards the camera, in `+Y`-up terms.
    fn toward(&self, front: Vec3) -> Vec3 {
        // The default direction is set for a model facing +X; turned to face `front`.
        let turn = front.x.atan2(front.z) - core::f32::consts::FRAC_PI_2;
        let yaw = VIEW.x.atan2(VIEW.z) + turn + self.yaw.to_radians();
        let pitch = self.pitch.clamp(-89.0, 89.0).to_radians();
        let (sin_p, cos_p) = pitch.sin_cos();
        let toward = Vec3::new(cos_p * yaw.sin(), sin_p, cos_p * yaw.cos());
        if toward.is_finite() {
            toward
        } else {
            VIEW.normalize()
        }
    }
}

impl Default for View {
    fn default() -> Self {
        View {
            yaw: 0.0,
            pitch: View::default_pitch(),
            background: BACKGROUND,
        }
    }
}

/// Where `asset` faces, in `+Y`-up terms: its [`front`](Asset::front), turned as its points
/// are. The formats' conventions set it (Quake's lineage faces `+X`, MilkShape `−Z`, an IQM
/// Blender's `−Y` in `+Z`-up terms, glTF `+Z`).
fn front(asset: &Asset) -> Vec3 {
    asset.up.to_y_up() * Vec3::from(asset.front)
}

/// One asset drawn into a `width × height` image.
///
/// ```
/// use skelmap_core::{Model, asset, synth};
/// use skelmap_export::render;
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Model::from_bytes(&bytes)?;
/// let asset = model.to_asset(&asset::Options::default())?;
/// let image = render::render(&asset, 64, 64)?;
/// // Something was drawn over the background.
/// assert!(image.rgba.chunks(4).any(|px| px != render::BACKGROUND));
/// let png = render::encode_png(image.width, image.height, &image.rgba)?;
/// assert_eq!(&png[1..4], b"PNG");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::NoGeometry`] without triangles; [`Error::ImageSize`] for an empty or oversized
/// image; [`Error::TooLarge`] for triangles whose bounds cover more than
/// [`MAX_PIXEL_TESTS`] pixels.
pub fn render(asset: &Asset, width: u32, height: u32) -> Result<Image> {
    render_with(asset, width, height, &View::default())
}

/// [`render`] seen as `view` says.
///
/// ```
/// use skelmap_core::{Model, asset, synth};
/// use skelmap_export::render;
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
/// let view = render::View { yaw: 180.0, background: [255; 4], ..Default::default() };
/// let image = render::render_with(&asset, 32, 32, &view)?;
/// assert_eq!(image.rgba[..4], [255; 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`render`].
pub fn render_with(asset: &Asset, width: u32, height: u32, view: &View) -> Result<Image> {
    contact_sheet_with(std::slice::from_ref(asset), 1, width, height, view)
}

/// Several assets (frames, or the first frame of each frame group) side by side, `columns`
/// per row, each in a `cell_width × cell_height` cell, all through one camera fitted to
/// their union so motion shows. Cells are filled row by row in `assets` order.
///
/// # Errors
///
/// As [`render`].
pub fn contact_sheet(
    assets: &[Asset],
    columns: u32,
    cell_width: u32,
    cell_height: u32,
) -> Result<Image> {
    contact_sheet_with(assets, columns, cell_width, cell_height, &View::default())
}

/// [`contact_sheet`] seen as `view` says.
///
/// # Errors
///
/// As [`render`].
pub fn contact_sheet_with(
    assets: &[Asset],
    columns: u32,
    cell_width: u32,
    cell_height: u32,
    view: &View,
) -> Result<Image> {
    let columns = columns.clamp(1, assets.len().max(1) as u32);
    let rows = (assets.len() as u32).div_ceil(columns).max(1);
    let (width, height) = (
        columns.saturating_mul(cell_width),
        rows.saturating_mul(cell_height),
    );
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(Error::ImageSize { width, height });
    }
    if assets.iter().all(|s| s.num_triangles() == 0) {
        return Err(Error::NoGeometry {
            format: assets.first().map_or("empty", |s| s.format),
            what: "render",
        });
    }
    let front = assets.first().map_or(Vec3::X, front);
    let camera = Camera::fit(assets, cell_width, cell_height, view.toward(front));
    let cell = [cell_width, cell_height];
    let tests = (assets.iter())
        .map(|asset| Canvas::tests(asset, &camera, cell))
        .fold(0u64, u64::saturating_add);
    if tests > MAX_PIXEL_TESTS {
        return Err(Error::TooLarge {
            what: "the pixels the preview's triangles cover (their bounds)",
            size: tests,
            unit: "pixels",
        });
    }
    let mut image = Canvas::new(width, height, view.background);
    for (i, asset) in assets.iter().enumerate() {
        let i = i as u32;
        let origin = [(i % columns) * cell_width, (i / columns) * cell_height];
        image.draw(asset, &camera, origin, [cell_width, cell_height]);
    }
    Ok(Image {
        width,
        height,
        rgba: image.rgba,
        jpeg: None,
    })
}

/// Writes `labels[i]` into the top-left corner of cell `i` of a contact sheet of `columns`
/// cells of `cell_width × cell_height` (as [`contact_sheet_with`] lays them out): ASCII in an
/// 8-pixel font, doubled from 256-pixel cells up, dark on a light `background` and light on a
/// dark one. Other characters are drawn as `?`; text past a cell's edge is cut.
///
/// ```
/// use skelmap_core::{Model, asset, synth};
/// use skelmap_export::render;
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
/// let mut sheet = render::contact_sheet(&[asset], 1, 64, 64)?;
/// let before = sheet.rgba.clone();
/// render::label_cells(&mut sheet, &["walk".to_string()], 1, [64, 64], render::BACKGROUND);
/// assert_ne!(sheet.rgba, before);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn label_cells(
    image: &mut Image,
    labels: &[String],
    columns: u32,
    [cell_width, cell_height]: [u32; 2],
    background: [u8; 4],
) {
    let columns = columns.max(1);
    let scale = (cell_width / 256).clamp(1, 4);
    let luminance = 0.299 * f32::from(background[0])
        + 0.587 * f32::from(background[1])
        + 0.114 * f32::from(background[2]);
    let ink: [u8; 3] = if luminance > 110.0 {
        [16, 16, 20]
    } else {
        [240, 240, 240]
    };
    let width = image.width;
    for (i, label) in labels.iter().enumerate() {
        let i = i as u32;
        let origin = [(i % columns) * cell_width, (i / columns) * cell_height];
        let margin = 2 * scale;
        for (k, c) in label.chars().enumerate() {
            let code = if c.is_ascii() && !c.is_ascii_control() {
                c as usize
            } else {
                '?' as usize
            };
            let glyph = font8x8::legacy::BASIC_LEGACY[code];
            let left = margin + 8 * scale * k as u32;
            for (row, bits) in glyph.iter().enumerate() {
                for column in 0..8u32 {
                    if bits & (1 << column) == 0 {
                        continue;
                    }
                    for dy in 0..scale {
                        for dx in 0..scale {
                            let x = left + column * scale + dx;
                            let y = margin + row as u32 * scale + dy;
                            if x >= cell_width || y >= cell_height {
                                continue;
                            }
                            let at = (origin[1] + y) as usize * width as usize
                                + (origin[0] + x) as usize;
                            if let Some(px) = image.rgba.get_mut(4 * at..4 * at + 3) {
                                px.copy_from_slice(&ink);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Encodes 8-bit RGBA pixels as PNG.
///
/// # Errors
///
/// [`Error::ImageSize`] when `rgba` is not `width · height · 4` bytes; [`Error::Encode`].
pub fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>> {
    if u64::from(width) * u64::from(height) * 4 != rgba.len() as u64 || width == 0 || height == 0 {
        return Err(Error::ImageSize { width, height });
    }
    let mut out = Vec::new();
    let fail = |e: png::EncodingError| Error::Encode {
        what: "PNG",
        message: e.to_string(),
    };
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(fail)?;
    writer.write_image_data(rgba).map_err(fail)?;
    writer.finish().map_err(fail)?;
    Ok(out)
}

/// An orthographic camera: screen axes, the centre of the fitted box and pixels per unit.
struct Camera {
    right: Vec3,
    up: Vec3,
    toward: Vec3,
    centre: [f32; 2],
    scale: f32,
}

impl Camera {
    /// `p` on the screen of a cell whose centre is `half`: x and y in pixels, then depth.
    fn project(&self, p: Vec3, half: [f32; 2]) -> [f32; 3] {
        [
            (p.dot(self.right) - self.centre[0]) * self.scale + half[0],
            half[1] - (p.dot(self.up) - self.centre[1]) * self.scale,
            p.dot(self.toward),
        ]
    }

    fn fit(assets: &[Asset], width: u32, height: u32, toward: Vec3) -> Camera {
        let toward = toward.normalize();
        let right = Vec3::Y.cross(toward).normalize();
        let up = toward.cross(right);
        let mut lo = [f32::INFINITY; 2];
        let mut hi = [f32::NEG_INFINITY; 2];
        for asset in assets {
            let q = asset.up.to_y_up();
            for p in asset.meshes.iter().flat_map(|m| m.positions.iter()) {
                let p = q * Vec3::from(*p);
                if p.is_finite() {
                    let s = [p.dot(right), p.dot(up)];
                    for k in 0..2 {
                        lo[k] = lo[k].min(s[k]);
                        hi[k] = hi[k].max(s[k]);
                    }
                }
            }
        }
        let span = [(hi[0] - lo[0]).max(1e-6), (hi[1] - lo[1]).max(1e-6)];
        let scale = (FILL * width as f32 / span[0]).min(FILL * height as f32 / span[1]);
        let centre = if lo[0].is_finite() {
            [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0]
        } else {
            [0.0; 2]
        };
        Camera {
            right,
            up,
            toward,
            centre,
            scale: if scale.is_finite() { scale } else { 1.0 },
        }
    }
}

struct Canvas {
    width: u32,
    rgba: Vec<u8>,
    depth: Vec<f32>,
}

impl Canvas {
    fn new(width: u32, height: u32, background: [u8; 4]) -> Canvas {
        let n = width as usize * height as usize;
        Canvas {
            width,
            rgba: background.repeat(n),
            depth: vec![f32::NEG_INFINITY; n],
        }
    }

    /// Draws `asset` into the cell at `origin` of size `size`.
    fn draw(&mut self, asset: &Asset, camera: &Camera, origin: [u32; 2], size: [u32; 2]) {
        let q = asset.up.to_y_up();
        let light = (camera.toward + Vec3::new(0.0, 0.8, 0.0) + 0.3 * camera.right).normalize();
        let half = [size[0] as f32 / 2.0, size[1] as f32 / 2.0];
        for mesh in &asset.meshes {
            let material = mesh.material.and_then(|m| asset.materials.get(m));
            let base = material.map_or([0.8, 0.8, 0.8, 1.0], |m| m.base_color);
            let image = material
                .and_then(|m| m.image)
                .and_then(|i| asset.images.get(i));
            let points: Vec<Vec3> = mesh.positions.iter().map(|p| q * Vec3::from(*p)).collect();
            for tri in &mesh.triangles {
                let Some(corners) = tri
                    .iter()
                    .map(|&i| points.get(i as usize).copied())
                    .collect::<Option<Vec<Vec3>>>()
                else {
                    continue;
                };
                let normal = (corners[1] - corners[0]).cross(corners[2] - corners[0]);
                let Some(normal) = normal.try_normalize() else {
                    continue;
                };
                let mut colour = base;
                if let (Some(image), Some(uvs)) = (image, mesh.uvs.as_ref()) {
                    let uv = tri
                        .iter()
                        .filter_map(|&i| uvs.get(i as usize))
                        .fold([0.0f32; 2], |a, b| [a[0] + b[0] / 3.0, a[1] + b[1] / 3.0]);
                    let texel = sample(image, uv);
                    for k in 0..3 {
                        colour[k] *= f32::from(texel[k]) / 255.0;
                    }
                }
                let shade = 0.25 + 0.75 * normal.dot(light).abs();
                let rgb = [0, 1, 2].map(|k| (colour[k] * shade * 255.0).clamp(0.0, 255.0) as u8);
                let screen: Vec<[f32; 3]> =
                    corners.iter().map(|&p| camera.project(p, half)).collect();
                self.triangle(&screen, rgb, origin, size);
            }
        }
    }

    /// The pixels drawing `asset` into a cell of `size` tests: each triangle's bounds,
    /// clipped to the cell, as [`Canvas::triangle`] scans them.
    fn tests(asset: &Asset, camera: &Camera, size: [u32; 2]) -> u64 {
        let q = asset.up.to_y_up();
        let half = [size[0] as f32 / 2.0, size[1] as f32 / 2.0];
        let mut tests = 0u64;
        for mesh in &asset.meshes {
            let screen: Vec<[f32; 3]> = (mesh.positions.iter())
                .map(|&p| camera.project(q * Vec3::from(p), half))
                .collect();
            for tri in &mesh.triangles {
                let corner = |k: usize| screen.get(tri[k] as usize).copied();
                if let (Some(a), Some(b), Some(c)) = (corner(0), corner(1), corner(2))
                    && let Some([x0, x1, y0, y1]) = bounds([a, b, c], size)
                {
                    let area = u64::from(x1 - x0) * u64::from(y1 - y0);
                    tests = tests.saturating_add(area);
                }
            }
        }
        tests
    }

    /// Fills one screen-space triangle (either winding) with a depth test, clipped to the
    /// cell.
    fn triangle(&mut self, v: &[[f32; 3]], rgb: [u8; 3], origin: [u32; 2], size: [u32; 2]) {
        let [a, b, c] = [v[0], v[1], v[2]];
        let Some([x0, x1, y0, y1]) = bounds([a, b, c], size) else {
            return;
        };
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        let edge = |p: [f32; 3], q: [f32; 3], x: f32, y: f32| {
            (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])
        };
        for y in y0..y1 {
            let py = y as f32 + 0.5;
            for x in x0..x1 {
                let px = x as f32 + 0.5;
                let w0 = edge(b, c, px, py) / area;
                let w1 = edge(c, a, px, py) / area;
                let w2 = edge(a, b, px, py) / area;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * a[2] + w1 * b[2] + w2 * c[2];
                let i = (origin[1] + y) as usize * self.width as usize + (origin[0] + x) as usize;
                if let Some(d) = self.depth.get_mut(i).filter(|d| z > **d) {
                    *d = z;
                    if let Some(px) = self.rgba.get_mut(4 * i..4 * i + 3) {
                        px.copy_from_slice(&rgb);
                    }
                }
            }
        }
    }
}

/// The pixels a screen-space triangle's bounds cover in a cell of `size`, as `[x0, x1, y0,
/// y1]` (ends excluded); `None` for a triangle with a coordinate not finite or no area,
/// which is not drawn.
fn bounds([a, b, c]: [[f32; 3]; 3], size: [u32; 2]) -> Option<[u32; 4]> {
    if ![a, b, c].iter().flatten().all(|x| x.is_finite()) {
        return None;
    }
    let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    if area.abs() < 1e-12 {
        return None;
    }
    let clamp = |x: f32, hi: u32| x.max(0.0).min(hi as f32) as u32;
    Some([
        clamp(a[0].min(b[0]).min(c[0]).floor(), size[0]),
        clamp(a[0].max(b[0]).max(c[0]).ceil(), size[0]),
        clamp(a[1].min(b[1]).min(c[1]).floor(), size[1]),
        clamp(a[1].max(b[1]).max(c[1]).ceil(), size[1]),
    ])
}

/// The texel under `uv` (wrapping, nearest).
fn sample(image: &Image, uv: [f32; 2]) -> [u8; 4] {
    let wrap = |t: f32, n: u32| {
        let t = if t.is_finite() {
            t.rem_euclid(1.0)
        } else {
            0.0
        };
        ((t * n as f32) as u32).min(n.saturating_sub(1))
    };
    let (x, y) = (wrap(uv[0], image.width), wrap(uv[1], image.height));
    let i = 4 * (y as usize * image.width as usize + x as usize);
    image
        .rgba
        .get(i..i + 4)
        .map_or([255; 4], |p| [p[0], p[1], p[2], p[3]])
}
