//! Progress bars in one style. When standard error is not a terminal (a
//! batch job's log), the bar is hidden and a plain line stands for it
//! every [`LOG_EVERY`] instead, so long work still shows in the log.

use std::io::IsTerminal;
use std::time::Duration;

/// How often a hidden bar writes its plain line.
pub const LOG_EVERY: Duration = Duration::from_secs(60);

/// A bar of `len` steps drawn with indicatif's `template` ("=> " as its
/// characters; the default style should the template not parse). `{rate}`
/// is the speed rounded for reading (`123/s`, `4.5/s`), where indicatif's
/// `{per_sec}` shows four decimals. `{eta_mean}` is the time left at the
/// mean speed so far (steadier than indicatif's `{eta}` where steps come
/// in uneven lumps, as a solve's layer pairs do).
pub fn bar(len: u64, template: &str) -> indicatif::ProgressBar {
    // The message takes what the line leaves of the terminal's width (and
    // is cut there), so a bar never wraps an 80-column terminal.
    let fitted = template
        .replace("{msg}", "{wide_msg}")
        .replace("{bar:40}", "{bar:20}")
        .replace("{bar:30}", "{bar:20}");
    let template = fitted.as_str();
    let bar = indicatif::ProgressBar::new(len);
    if !std::io::stderr().is_terminal() {
        log_lines(&bar);
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .with_key(
                "rate",
                |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                    let _ = out.write_str(&rate(state.per_sec()));
                },
            )
            .with_key(
                "eta_mean",
                |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                    let _ = out.write_str(&eta_text(
                        state.pos(),
                        state.len(),
                        state.elapsed().as_secs_f64(),
                    ));
                },
            )
            .progress_chars("=> "),
    );
    bar
}

/// Writes `bar`'s state as one plain line on standard error every
/// [`LOG_EVERY`] until it is finished or dropped (a thread per bar, which
/// holds it weakly).
fn log_lines(bar: &indicatif::ProgressBar) {
    let weak = bar.downgrade();
    let spawned = std::thread::Builder::new()
        .name("progress-log".into())
        .spawn(move || {
            let mut waited = Duration::ZERO;
            let tick = Duration::from_millis(500);
            loop {
                std::thread::sleep(tick);
                waited += tick;
                let Some(bar) = weak.upgrade() else { return };
                if bar.is_finished() {
                    return;
                }
                if waited >= LOG_EVERY {
                    waited = Duration::ZERO;
                    eprintln!("{}", log_line(&bar));
                }
            }
        });
    // Without the thread the bar only goes unlogged.
    drop(spawned);
}

/// A bar's state as a line for a log.
fn log_line(bar: &indicatif::ProgressBar) -> String {
    let position = bar.position();
    let mut line = format!("[{}] {position}", duration(bar.elapsed().as_secs_f64()));
    if let Some(len) = bar.length().filter(|&len| len > 0) {
        line.push_str(&format!(
            "/{len} ({:.0}%), ETA {}",
            100.0 * position as f64 / len as f64,
            eta_text(position, Some(len), bar.elapsed().as_secs_f64())
        ));
    }
    let message = bar.message();
    if !message.is_empty() {
        line.push_str(&format!("; {message}"));
    }
    line
}

/// The time left at the mean speed so far, for people (`-` before any
/// step).
fn eta_text(position: u64, len: Option<u64>, elapsed: f64) -> String {
    match len {
        Some(len) if position > 0 && len >= position => {
            duration(elapsed * (len - position) as f64 / position as f64)
        }
        _ => "-".into(),
    }
}

/// A speed for people: whole numbers from 10 per second up, one decimal
/// below.
pub fn rate(per_second: f64) -> String {
    if !per_second.is_finite() {
        "-/s".to_string()
    } else if per_second >= 10.0 {
        format!("{per_second:.0}/s")
    } else {
        format!("{per_second:.1}/s")
    }
}

/// A duration for people: `42 s`, `3 min 05 s`, `2 h 04 min`.
pub fn duration(seconds: f64) -> String {
    let whole = seconds.max(0.0).round() as u64;
    match whole {
        0..60 => format!("{:.0} s", seconds.max(0.0)),
        60..3600 => format!("{} min {:02} s", whole / 60, whole % 60),
        _ => format!("{} h {:02} min", whole / 3600, (whole % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rates_are_rounded_for_reading() {
        assert_eq!(super::rate(1234.5678), "1235/s");
        assert_eq!(super::rate(4.5678), "4.6/s");
        assert_eq!(super::rate(f64::INFINITY), "-/s");
    }

    #[test]
    fn durations_are_written_for_reading() {
        assert_eq!(super::duration(42.4), "42 s");
        assert_eq!(super::duration(185.0), "3 min 05 s");
        assert_eq!(super::duration(7440.0), "2 h 04 min");
    }
}
