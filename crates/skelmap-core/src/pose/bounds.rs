//! Axis-aligned bounding boxes. Stored bounds come from the files (DPM frames); computed ones
//! from skinned vertices ([`skinned_frame_bounds`](crate::skin::skinned_frame_bounds)).

/// An axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Smallest coordinates.
    pub mins: [f32; 3],
    /// Largest coordinates.
    pub maxs: [f32; 3],
}

impl Aabb {
    /// The box around `points`, or `None` when there are none.
    ///
    /// ```
    /// use skelmap_core::pose::bounds::Aabb;
    /// let b = Aabb::from_points(&[[1.0, -2.0, 0.0], [-1.0, 3.0, 0.5]]).unwrap();
    /// assert_eq!((b.mins, b.maxs), ([-1.0, -2.0, 0.0], [1.0, 3.0, 0.5]));
    /// ```
    #[must_use]
    pub fn from_points(points: &[[f32; 3]]) -> Option<Aabb> {
        let first = *points.first()?;
        Some(points.iter().fold(
            Aabb {
                mins: first,
                maxs: first,
            },
            |b, p| b.union(&Aabb { mins: *p, maxs: *p }),
        ))
    }

    /// The box around both.
    #[must_use]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            mins: core::array::from_fn(|k| self.mins[k].min(other.mins[k])),
            maxs: core::array::from_fn(|k| self.maxs[k].max(other.maxs[k])),
        }
    }

    /// The largest distance from the origin to a corner (DPM's `allradius` is the largest
    /// distance to a vertex, which this bounds from above).
    #[must_use]
    pub fn corner_radius(&self) -> f32 {
        let c: [f32; 3] = core::array::from_fn(|k| self.mins[k].abs().max(self.maxs[k].abs()));
        (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()
    }
}
