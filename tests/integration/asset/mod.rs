//! `asset`: the owned, format-neutral model; here, which influences a vertex keeps when a
//! buffer or a format holds fewer (`asset::cut`), and the attachment joints a format stores
//! as points on their bones (`pose.rs`).

mod cut;
mod pose;
