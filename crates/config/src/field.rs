//! Field paths: how a diagnostic names the value it is about (`streams[1].rate`).

/// `parent.key`, or `key` at the root.
pub(crate) fn join_key(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// `parent[i]`.
pub(crate) fn join_index(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

/// The path one level up: `a.b[2]` → `a.b` → `a` → `` → none.
pub(crate) fn parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    Some(match path.rfind(['.', '[']) {
        Some(i) => &path[..i],
        None => "",
    })
}
