//! `asset`: the owned, format-neutral model; here, which influences a vertex keeps when a
//! buffer or a format holds fewer (`asset::cut`).

mod cut;
