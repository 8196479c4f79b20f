//! Progress bars in one style (hidden when standard error is not a terminal).

/// A bar of `len` steps drawn with indicatif's `template` ("=> " as its
/// characters; the default style should the template not parse).
pub fn bar(len: u64, template: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}
