//! A model's sampling context: [`Model::sample`] again and again, with the frames decoded
//! kept for the next calls.

use super::Model;
use super::any::with_view;
use crate::hl1::Controls;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{Interpolation, KeptFrames, LocalPose};
use crate::view::{DeformError, ModelView};

/// A sampling context for one model, as a game keeps one per playing character:
/// [`sample`](Sampler::sample) gives [`Model::sample`]'s poses bit for bit (or, once
/// [`set_controls`](Sampler::set_controls) is called, [`Model::sample_controlled`]'s) and keeps
/// the frames it decoded for the next calls, up to a budget, as
/// [`pose::Sampler`](crate::pose::Sampler) does for one source. Playing forward, a Half-Life
/// model decodes each frame once (a skeleton of a few bones, one conversion for several), and a
/// clip played again within the budget none; formats with a pass of their own (DPM, IQM, MD5,
/// MDX and MDM) and formats keyed in time (MS3D) sample as `Model::sample` does and keep
/// nothing. It borrows the model, so what it keeps cannot go stale.
///
/// ```
/// use skelmap_core::Model;
/// use skelmap_core::hl1::Builder;
/// use skelmap_core::pose::{Interpolation, LocalPose};
/// let bytes = Builder::example().write()?;
/// let model = Model::from_bytes(&bytes)?;
/// let mut sampler = model.sampler();
/// let (mut kept, mut fresh) = (LocalPose::default(), LocalPose::default());
/// for frame in 0..model.num_frames() - 1 {
///     sampler.sample(frame, frame + 1, 0.5, Interpolation::Nlerp, &mut kept);
///     model.sample(frame, frame + 1, 0.5, Interpolation::Nlerp, &mut fresh);
///     assert_eq!(kept, fresh);
/// }
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Sampler<'m, 'data> {
    model: &'m Model<'data>,
    kept: KeptFrames,
    controls: Option<Controls>,
}

impl<'data> Model<'data> {
    /// A sampling context for this model, keeping nothing yet: see [`Sampler`].
    #[must_use]
    pub fn sampler(&self) -> Sampler<'_, 'data> {
        Sampler {
            model: self,
            kept: KeptFrames::default(),
            controls: None,
        }
    }
}

impl<'m, 'data> Sampler<'m, 'data> {
    /// The model it samples.
    #[must_use]
    pub fn model(&self) -> &'m Model<'data> {
        self.model
    }

    /// Keeps at most `bytes` of decoded poses
    /// ([`pose::DEFAULT_BUDGET`](crate::pose::DEFAULT_BUDGET) until set; see
    /// [`KeptFrames::set_budget`]): many characters playing at once may want less each.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::hl1::Builder;
    /// use skelmap_core::pose::{Interpolation, LocalPose};
    /// let bytes = Builder::example().write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let mut sampler = model.sampler();
    /// sampler.set_budget(16 * 1024);
    /// let (mut kept, mut fresh) = (LocalPose::default(), LocalPose::default());
    /// sampler.sample(0, 1, 0.5, Interpolation::Nlerp, &mut kept);
    /// model.sample(0, 1, 0.5, Interpolation::Nlerp, &mut fresh);
    /// assert_eq!(kept, fresh);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn set_budget(&mut self, bytes: usize) {
        self.kept.set_budget(bytes);
    }

    /// The controller settings it samples with, once set.
    #[must_use]
    pub fn controls(&self) -> Option<&Controls> {
        self.controls.as_ref()
    }

    /// Samples with the model's bone controllers set as `controls` says, as
    /// [`Model::sample_controlled`] does, from the next call on. Other settings than before
    /// make other poses: the frames kept are forgotten.
    pub fn set_controls(&mut self, controls: Controls) {
        if self.controls != Some(controls) {
            self.kept.clear();
            self.controls = Some(controls);
        }
    }

    /// [`Model::sample_clip`]`(clip, seconds, looped, interpolation, out)` (with the controls
    /// set, its frames sampled as [`Model::sample_controlled`] samples them), the same poses
    /// bit for bit, decoding only the frames it does not keep: a character playing a clip.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::hl1::Builder;
    /// use skelmap_core::pose::{Interpolation, LocalPose};
    /// let bytes = Builder::example().write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let turn = model.clip("turn").ok_or("no turn")?; // a sequence of 4 frames at 15 fps
    /// let mut sampler = model.sampler();
    /// let (mut kept, mut fresh) = (LocalPose::default(), LocalPose::default());
    /// for tick in 0..20 {
    ///     let seconds = tick as f32 / 60.0;
    ///     sampler.sample_clip(turn, seconds, true, Interpolation::Nlerp, &mut kept)?;
    ///     model.sample_clip(turn, seconds, true, Interpolation::Nlerp, &mut fresh)?;
    ///     assert_eq!(kept, fresh);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Model::sample_clip`]; on failure `out` is left as it was.
    pub fn sample_clip(
        &mut self,
        clip: &FrameGroup,
        seconds: f32,
        looped: bool,
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) -> Result<(), DeformError> {
        let model = self.model;
        let at = model.clip_at(clip, seconds, looped)?;
        out.skin_scales.clear();
        if !with_view!(model.view(), v => v.sample_seconds(at.seconds, interpolation, out)) {
            self.sample(at.a, at.b, at.t, interpolation, out);
        }
        Ok(())
    }

    /// [`Model::sample`]`(a, b, t, interpolation, out)`, or with the controls set
    /// [`Model::sample_controlled`], the same poses bit for bit, decoding only the frames it
    /// does not keep.
    pub fn sample(
        &mut self,
        a: usize,
        b: usize,
        t: f32,
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) {
        let model = self.model;
        let last = model.num_frames().saturating_sub(1);
        let (a, b) = (a.min(last), b.min(last));
        // Formats that sample themselves (MS3D) leave skin scales alone.
        out.skin_scales.clear();
        match (self.controls, model.as_hl1()) {
            (Some(controls), Some(pair)) if !pair.model().controllers().is_empty() => {
                let controlled = pair.controlled(controls);
                self.kept.sample(&controlled, (a, b, t), interpolation, out);
            }
            _ => with_view!(model.view(), v => {
                ModelView::sample_kept(v, &mut self.kept, (a, b, t), interpolation, out)
            }),
        }
    }
}
