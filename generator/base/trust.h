/* trust.h - may ctkgen run this program?  One rule for every program another user might control.
 * SPDX-License-Identifier: MIT
 *
 * ctkgen runs as root over trees that other people write, and a program it
 * starts runs with its rights.  ctk_trust_exec() says whether a program is
 * one that only root and the user running ctkgen can have chosen.  It is
 * true when each of these:
 *   - the path as given (made absolute against the working directory) and
 *     every directory above it, up to /;
 *   - the path it resolves to (realpath) and every directory above that;
 *   - for a script, the interpreter its #! line names, by the same rule
 *     (nested #! lines up to 4 levels, as the kernel allows)
 * is owned by root or by the effective uid (as root: root alone), and is
 * writable neither by its group nor by others (mode & 022 is 0).  A
 * symbolic link met on the way must be owned by root or the effective uid;
 * its own mode means nothing, and where it leads is checked as the
 * resolved path.
 *
 * Why each part:
 *   - a directory another user can write lets them rename or replace any
 *     entry in it, so owning the file is not enough: every directory up to
 *     / counts;
 *   - a world-writable directory with the sticky bit (/tmp, /var/tmp) is
 *     refused like any other: the sticky bit only stops others deleting
 *     what they do not own, but anyone could have made a name there before
 *     root did (a /tmp/cuda of their own, or a directory later chowned),
 *     filesystems differ in honouring it (NFS, FUSE), and ctkgen does not
 *     reason about who made a name in a shared directory.  OpenSSH's
 *     safe_path() refuses the same;
 *   - group write is refused whatever the group: its members are other
 *     users.  With POSIX ACLs the group bits are the ACL mask, so a named
 *     user's or group's write permission shows there too;
 *   - the spelling and the resolved path are both checked: the resolved
 *     path alone misses a link in another user's directory (re-pointed
 *     between the check and the exec), the spelling alone misses a
 *     root-owned link into another user's tree.
 * Once a path passes, nobody but root and this user can change any part of
 * it, so nothing can change between the check and the exec.
 *
 * Not covered: what the program itself goes on to run or load (nvcc's
 * cicc and ptxas from its own tree, libraries on its run path, a host
 * compiler found on PATH).  Those come from the tree the program lives in,
 * which a trusted program's installer controls, or from the environment
 * ctkgen gives it.
 *
 * why (may be NULL) gets one line naming the path at fault and the reason,
 * with its owner (uid and name) and mode, and the program it leads to:
 *   "/tmp is writable by others: mode 1777, owner uid 0 (root), on the way
 *    to /tmp/cuda/bin/nvcc"
 *   "/home/u/fake/bin/nvcc is owned by uid 1000 (u), not root: mode 0755"
 *   "/home/u is owned by uid 1000 (u), not root: mode 0755, on the way to
 *    /home/u/nvcc (where /opt/cuda/bin/nvcc leads)"
 * (cut to why_len), and "" when the program is trusted.  Safe from several
 * threads.
 */
#ifndef CTK_TRUST_H
#define CTK_TRUST_H

#include <stdbool.h>
#include <stddef.h>

bool ctk_trust_exec(const char *path, char *why, size_t why_len);

#endif
