//! Reading files that someone else may have named: the one helper every
//! reader of an outside file goes through (rule files, models, tables,
//! game records, manifests). A file is read only if it is a regular file,
//! refused before it is opened otherwise (opening a FIFO blocks until
//! something writes to it, so it must be refused by looking), and read up
//! to a stated limit, so a large or endless file cannot take the memory.

use std::fs::File;
use std::io::{BufRead, Read};
use std::path::Path;

/// Opens `path` for reading if it is a regular file, refusing anything else
/// (a folder, a device, a FIFO) before opening it. The opened file is
/// checked again, in case the path changed in between.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    let not_regular = |what: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("not a regular file ({what})"),
        )
    };
    let metadata = std::fs::metadata(path)?;
    if !metadata.is_file() {
        return Err(not_regular(kind_of(&metadata)));
    }
    let file = File::open(path)?;
    let opened = file.metadata()?;
    if !opened.is_file() {
        return Err(not_regular(kind_of(&opened)));
    }
    Ok(file)
}

/// One line of a file read by [`read_line_bounded`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundedLine {
    /// The end of the file: nothing was read.
    End,
    /// A line of this many bytes, its `\n` included when it has one (the
    /// last line of a file may not).
    Line(usize),
    /// A line longer than the limit: what was read of it is discarded.
    /// `ended`: its `\n` was read too (the line ended right after the
    /// limit), so the reader is at the next line; otherwise it is left
    /// inside this one, for the caller to skip or to stop at.
    TooLong {
        /// Whether the line's end was read.
        ended: bool,
    },
}

/// Reads one line of `reader` into `line` (cleared first), holding at most
/// `limit` bytes of it: a line from someone else's file costs memory by
/// the limit, not by its length, and a longer one is reported rather than
/// cut (a limit never silently changes what is read).
pub fn read_line_bounded(
    reader: &mut impl std::io::BufRead,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<BoundedLine> {
    line.clear();
    let read = reader
        .by_ref()
        .take(limit as u64 + 1)
        .read_until(b'\n', line)?;
    Ok(if read == 0 {
        BoundedLine::End
    } else if line.len() > limit {
        let ended = line.last() == Some(&b'\n');
        line.clear();
        BoundedLine::TooLong { ended }
    } else {
        BoundedLine::Line(read)
    })
}

/// [`read_bounded`] of `dir/name` for a folder that is a closed world (a
/// models folder someone sent): `name` must be a plain file name (no
/// folder, no way up, nothing absolute), and the file itself, not a
/// symbolic link to anything, so nothing outside the folder is ever read.
/// A link is refused by looking (`lstat`) before the file is opened, and
/// the file opened must be the one looked at (same device and inode), so
/// a link planted in between is refused too.
pub fn read_in_folder(dir: &Path, name: &str, limit: u64) -> std::io::Result<Vec<u8>> {
    let refused = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', ':', '\0']) {
        return Err(refused(format!(
            "{name:?} is not a plain file name inside the folder"
        )));
    }
    let path = dir.join(name);
    let looked = std::fs::symlink_metadata(&path)?;
    if looked.file_type().is_symlink() {
        return Err(refused(
            "a symbolic link; a folder from elsewhere must hold its files itself".to_string(),
        ));
    }
    if !looked.is_file() {
        return Err(refused(format!(
            "not a regular file ({})",
            kind_of(&looked)
        )));
    }
    let file = File::open(&path)?;
    let opened = file.metadata()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (opened.dev(), opened.ino()) != (looked.dev(), looked.ino()) {
            return Err(refused(
                "changed while it was opened (a link planted in its place?)".to_string(),
            ));
        }
    }
    if !opened.is_file() {
        return Err(refused(format!(
            "not a regular file ({})",
            kind_of(&opened)
        )));
    }
    if opened.len() > limit {
        return Err(std::io::Error::other(format!(
            "{} bytes; at most {limit} are read",
            opened.len()
        )));
    }
    let mut bytes = Vec::with_capacity(opened.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "more than {limit} bytes; at most {limit} are read"
        )));
    }
    Ok(bytes)
}

/// What a file that is not a regular file is, in a word.
fn kind_of(metadata: &std::fs::Metadata) -> &'static str {
    let kind = metadata.file_type();
    if kind.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    "not a file"
}

/// Reads the regular file `path` whole, refusing one of more than `limit`
/// bytes (by its size before reading, and by what is read, in case it
/// grows meanwhile).
pub fn read_bounded(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let size = file.metadata()?.len();
    if size > limit {
        return Err(std::io::Error::other(format!(
            "{size} bytes; at most {limit} are read"
        )));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "more than {limit} bytes; at most {limit} are read"
        )));
    }
    Ok(bytes)
}

/// [`std::fs::create_dir_all`], with a clear error for the case it words
/// badly: a path that is a symbolic link to nothing (std says only "File
/// exists").
pub fn create_dir_all(path: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(path).map_err(|error| {
        let dangling = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
            && std::fs::metadata(path).is_err();
        if dangling {
            let target = std::fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".into());
            std::io::Error::other(format!(
                "it is a symbolic link to {target}, which does not exist"
            ))
        } else {
            error
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Against a plain split of the text: every line up to the limit
        /// comes back as it was, and a longer one is reported as such.
        #[test]
        fn lines_are_read_as_split_up_to_the_limit(
            text in "[ab\n]{0,60}",
            limit in 1usize..12,
            buffer in 1usize..8,
        ) {
            let mut reader = std::io::BufReader::with_capacity(buffer, text.as_bytes());
            let mut line = Vec::new();
            for expected in text.split_inclusive('\n') {
                let read = read_line_bounded(&mut reader, &mut line, limit).unwrap();
                if expected.len() > limit {
                    let ended = expected.len() == limit + 1 && expected.ends_with('\n');
                    proptest::prop_assert_eq!(read, BoundedLine::TooLong { ended });
                    return Ok(());
                }
                proptest::prop_assert_eq!(read, BoundedLine::Line(expected.len()));
                proptest::prop_assert_eq!(&line[..], expected.as_bytes());
            }
            proptest::prop_assert_eq!(read_line_bounded(&mut reader, &mut line, limit).unwrap(), BoundedLine::End);
        }
    }

    #[test]
    fn folders_are_refused_and_limits_hold() {
        let dir = std::env::temp_dir().join(format!("sawah-engine-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let error = read_bounded(&dir, 10).unwrap_err();
        assert!(error.to_string().contains("a folder"), "{error}");
        let file = dir.join("f.txt");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_bounded(&file, 10).unwrap(), b"0123456789");
        let error = read_bounded(&file, 9).unwrap_err();
        assert!(error.to_string().contains("at most 9"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = std::env::temp_dir().join(format!("sawah-engine-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let error = read_bounded(&fifo, 10).unwrap_err();
        assert!(error.to_string().contains("a FIFO"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_nothing_is_named_as_such() {
        let dir = std::env::temp_dir().join(format!("sawah-files-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join("out");
        std::os::unix::fs::symlink(dir.join("nowhere"), &link).unwrap();
        let error = create_dir_all(&link).unwrap_err().to_string();
        assert!(
            error.contains("symbolic link to") && error.contains("does not exist"),
            "{error}"
        );
        create_dir_all(&dir.join("made/deeper")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
