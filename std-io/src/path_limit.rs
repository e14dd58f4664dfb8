//! The operating system's limit on the length of a path, and what of it is left for the
//! files an archive writes below a folder (`spec/mpk.md` §6.5, `spec/mvb.md` §6.2): a path
//! past the limit fails with `ENAMETOOLONG` when its file is created, after the archive
//! passed every rule that does not know the destination, so the readers refuse it first,
//! at its entry ([`modelgate_core::tar::EntrySink::max_path_bytes`]).

/// `PATH_MAX`: the most bytes a path handed to the operating system may have, its
/// terminating NUL included (`spec/mpk.md` §6.5). Linux and Android: 4096
/// (`<linux/limits.h>`). macOS, iOS and the BSDs: 1024 (`<sys/syslimits.h>`). Windows:
/// 32767 UTF-16 units for the `\\?\` paths `std::fs::canonicalize` returns; a path's UTF-8
/// bytes are never fewer than its UTF-16 units, so counting bytes is on the safe side.
/// Elsewhere the smallest of these, 1024.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub const PATH_MAX: usize = 4096;
/// `PATH_MAX` (see the Linux value's documentation).
#[cfg(windows)]
pub const PATH_MAX: usize = 32767;
/// `PATH_MAX` (see the Linux value's documentation).
#[cfg(not(any(target_os = "linux", target_os = "android", windows)))]
pub const PATH_MAX: usize = 1024;

/// The bytes left for a relative path below a folder whose absolute path is `folder_len`
/// bytes long (`spec/mpk.md` §6.5): [`PATH_MAX`] less the NUL, the folder and the `/`
/// between the folder and the path. 0 when the folder itself leaves nothing.
pub(crate) fn room_below(folder_len: usize) -> usize {
    PATH_MAX.saturating_sub(folder_len.saturating_add(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_below_counts_the_nul_and_one_separator() {
        assert_eq!(room_below(0), PATH_MAX - 2);
        assert_eq!(room_below(10), PATH_MAX - 12);
        // The folder's path + `/` + a path of `room_below` bytes + NUL is exactly PATH_MAX.
        assert_eq!(100 + 1 + room_below(100) + 1, PATH_MAX);
        assert_eq!(room_below(PATH_MAX), 0);
        assert_eq!(room_below(usize::MAX), 0);
    }
}
