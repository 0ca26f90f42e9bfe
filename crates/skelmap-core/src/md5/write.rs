//! Writing `.md5mesh` and `.md5anim` text.
