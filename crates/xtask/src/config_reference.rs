//! The configuration reference: the JSON Schemas of the system, profile and reflector files
//! (`schema/*.schema.json`) and their reference pages (`docs/reference/*.md`), made from the
//! config types (`upfbench_config::schema`), whose tests fail when the committed
//! files differ from what the types make.

use std::path::Path;

use upfbench_config::schema::generated_files;

/// Writes every file into the repository at `root`; returns the paths (from `root`) of those
/// whose text changed.
pub(crate) fn write_all(root: &Path) -> std::io::Result<Vec<String>> {
    let mut changed = Vec::new();
    for file in generated_files() {
        let path = root.join(&file.path);
        if std::fs::read_to_string(&path).is_ok_and(|old| old == file.text) {
            continue;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, file.text)?;
        changed.push(file.path);
    }
    Ok(changed)
}
