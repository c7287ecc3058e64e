package main

import (
	"context"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// node is go-fuse's loopback node with every change of file data journalled, and every change at
// all refused after the crash.
type node struct {
	*fs.LoopbackNode
	lazy *lazy
}

var (
	_ fs.NodeWrapChilder    = (*node)(nil)
	_ fs.NodeOpener         = (*node)(nil)
	_ fs.NodeCreater        = (*node)(nil)
	_ fs.NodeSetattrer      = (*node)(nil)
	_ fs.NodeUnlinker       = (*node)(nil)
	_ fs.NodeRenamer        = (*node)(nil)
	_ fs.NodeLinker         = (*node)(nil)
	_ fs.NodeMkdirer        = (*node)(nil)
	_ fs.NodeRmdirer        = (*node)(nil)
	_ fs.NodeSymlinker      = (*node)(nil)
	_ fs.NodeMknoder        = (*node)(nil)
	_ fs.NodeTmpfiler       = (*node)(nil)
	_ fs.NodeCopyFileRanger = (*node)(nil)
)

func (n *node) WrapChild(ctx context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &node{LoopbackNode: ops.(*fs.LoopbackNode), lazy: n.lazy}
}

// backing is the path of name in this directory on the backing file system.
func (n *node) backing(name string) string {
	return filepath.Join(n.RootData.Path, n.Path(nil), name)
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	// O_TRUNC becomes a journalled truncate once the file is open.
	fh, fuseFlags, errno := n.LoopbackNode.Open(ctx, readable(flags)&^syscall.O_TRUNC)
	if errno != 0 {
		return nil, 0, errno
	}
	f, errno := n.wrap(ctx, fh)
	if errno == 0 && flags&syscall.O_TRUNC != 0 {
		errno = n.lazy.guard(func() syscall.Errno { return f.truncate(0) })
	}
	if errno != 0 {
		fh.(fs.FileReleaser).Release(ctx)
		return nil, 0, errno
	}
	return f, fuseFlags, 0
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32,
	out *fuse.EntryOut) (inode *fs.Inode, fh fs.FileHandle, fuseFlags uint32, errno syscall.Errno) {
	errno = n.lazy.guard(func() syscall.Errno {
		var before unix.Stat_t
		existed := unix.Lstat(n.backing(name), &before) == nil
		var opened fs.FileHandle
		inode, opened, fuseFlags, errno = n.LoopbackNode.Create(ctx, name, readable(flags)&^syscall.O_TRUNC, mode, out)
		if errno != 0 {
			return errno
		}
		if !existed {
			// A new inode: whatever was journalled under its number belonged to a file now gone.
			var st unix.Stat_t
			if err := unix.Fstat(descriptor(opened), &st); err == nil {
				n.lazy.forget(keyOf(&st))
			}
		}
		var f *file
		f, errno = n.wrap(ctx, opened)
		if errno == 0 && existed && flags&syscall.O_TRUNC != 0 {
			errno = f.truncate(0)
		}
		if errno != 0 {
			opened.(fs.FileReleaser).Release(ctx)
			return errno
		}
		fh = f
		return 0
	})
	return inode, fh, fuseFlags, errno
}

// readable opens for reading and writing what is opened for writing: the journal reads the bytes
// a write overwrites. The kernel still holds the caller to the access it asked for.
func readable(flags uint32) uint32 {
	if flags&syscall.O_ACCMODE == syscall.O_WRONLY {
		return flags&^syscall.O_ACCMODE | syscall.O_RDWR
	}
	return flags
}

func (n *node) wrap(ctx context.Context, fh fs.FileHandle) (*file, syscall.Errno) {
	lf := fh.(*fs.LoopbackFile)
	fd := descriptor(lf)
	j, err := n.lazy.journalOf(fd)
	if err != nil {
		return nil, errno(err)
	}
	return &file{lf: lf, fd: fd, j: j, lazy: n.lazy}, 0
}

func descriptor(fh fs.FileHandle) int {
	fd, _ := fh.(*fs.LoopbackFile).PassthroughFd()
	return fd
}

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if f != nil {
		// The file's Setattr journals a change of size.
		return n.LoopbackNode.Setattr(ctx, f, in, out)
	}
	return n.lazy.guard(func() syscall.Errno {
		if size, ok := in.GetSize(); ok {
			if errno := n.truncatePath(int64(size)); errno != 0 {
				return errno
			}
			rest := *in
			rest.Valid &^= fuse.FATTR_SIZE
			in = &rest
		}
		return n.LoopbackNode.Setattr(ctx, nil, in, out)
	})
}

// truncatePath is truncate(2) on this node's path, journalled. Callers hold the guard.
func (n *node) truncatePath(size int64) syscall.Errno {
	fd, err := unix.Open(n.backing(""), unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return errno(err)
	}
	defer unix.Close(fd)
	j, err := n.lazy.journalOf(fd)
	if err != nil {
		return errno(err)
	}
	return (&file{fd: fd, j: j, lazy: n.lazy}).truncate(size)
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	return n.lazy.guard(func() syscall.Errno {
		var st unix.Stat_t
		last := unix.Lstat(n.backing(name), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink == 1
		errno := n.LoopbackNode.Unlink(ctx, name)
		if errno == 0 && last {
			n.lazy.forget(keyOf(&st))
		}
		return errno
	})
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	return n.lazy.guard(func() syscall.Errno {
		var src, dst unix.Stat_t
		target := filepath.Join(n.RootData.Path, newParent.EmbeddedInode().Path(nil), newName)
		replaced := flags&unix.RENAME_EXCHANGE == 0 &&
			unix.Lstat(n.backing(name), &src) == nil &&
			unix.Lstat(target, &dst) == nil &&
			dst.Mode&unix.S_IFMT == unix.S_IFREG && dst.Nlink == 1 && keyOf(&src) != keyOf(&dst)
		errno := n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
		if errno == 0 && replaced {
			n.lazy.forget(keyOf(&dst))
		}
		return errno
	})
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (inode *fs.Inode, errno syscall.Errno) {
	errno = n.lazy.guard(func() syscall.Errno {
		inode, errno = n.LoopbackNode.Link(ctx, target, name, out)
		return errno
	})
	return inode, errno
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (inode *fs.Inode, errno syscall.Errno) {
	errno = n.lazy.guard(func() syscall.Errno {
		inode, errno = n.LoopbackNode.Mkdir(ctx, name, mode, out)
		return errno
	})
	return inode, errno
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	return n.lazy.guard(func() syscall.Errno { return n.LoopbackNode.Rmdir(ctx, name) })
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (inode *fs.Inode, errno syscall.Errno) {
	errno = n.lazy.guard(func() syscall.Errno {
		inode, errno = n.LoopbackNode.Symlink(ctx, target, name, out)
		return errno
	})
	return inode, errno
}

func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (inode *fs.Inode, errno syscall.Errno) {
	errno = n.lazy.guard(func() syscall.Errno {
		inode, errno = n.LoopbackNode.Mknod(ctx, name, mode, rdev, out)
		return errno
	})
	return inode, errno
}

// Tmpfile refuses O_TMPFILE (callers fall back to a named file): the loopback's handle would
// write unjournalled.
func (n *node) Tmpfile(ctx context.Context, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EOPNOTSUPP
}

// CopyFileRange refuses, so the kernel copies through Read and Write, which are journalled.
func (n *node) CopyFileRange(ctx context.Context, fhIn fs.FileHandle, offIn uint64, out *fs.Inode,
	fhOut fs.FileHandle, offOut uint64, length uint64, flags uint64) (uint32, syscall.Errno) {
	return 0, syscall.EOPNOTSUPP
}

// file is an open file: reads and attributes go to the loopback's handle, changes through the
// journal. It deliberately offers no FUSE passthrough (PassthroughFd) nor Writev, with which the
// kernel or go-fuse would write around the journal.
type file struct {
	lf   *fs.LoopbackFile
	fd   int
	j    *journal
	lazy *lazy
}

var (
	_ fs.FileReader    = (*file)(nil)
	_ fs.FileWriter    = (*file)(nil)
	_ fs.FileReleaser  = (*file)(nil)
	_ fs.FileFlusher   = (*file)(nil)
	_ fs.FileFsyncer   = (*file)(nil)
	_ fs.FileSetattrer = (*file)(nil)
	_ fs.FileGetattrer = (*file)(nil)
	_ fs.FileLseeker   = (*file)(nil)
	_ fs.FileAllocater = (*file)(nil)
)

func (f *file) Read(ctx context.Context, buf []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return f.lf.Read(ctx, buf, off)
}

func (f *file) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	var written int
	errno := f.change(func() error {
		if err := f.j.save(f.fd, off, off+int64(len(data))); err != nil {
			return err
		}
		var err error
		written, err = unix.Pwrite(f.fd, data, off)
		return err
	})
	return uint32(max(written, 0)), errno
}

// Fsync makes the file durable as it is: fsync and fdatasync alike. The backing file is not
// synced: the model needs only the journal forgotten.
func (f *file) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	return f.lazy.guard(func() syscall.Errno {
		f.j.mu.Lock()
		defer f.j.mu.Unlock()
		f.j.synced()
		return 0
	})
}

// Flush is close(2): it makes nothing durable.
func (f *file) Flush(ctx context.Context) syscall.Errno {
	return f.lf.Flush(ctx)
}

func (f *file) Release(ctx context.Context) syscall.Errno {
	return f.lf.Release(ctx)
}

func (f *file) Setattr(ctx context.Context, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return f.lazy.guard(func() syscall.Errno {
		if size, ok := in.GetSize(); ok {
			if errno := f.truncate(int64(size)); errno != 0 {
				return errno
			}
			rest := *in
			rest.Valid &^= fuse.FATTR_SIZE
			in = &rest
		}
		return f.lf.Setattr(ctx, in, out)
	})
}

func (f *file) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	return f.lf.Getattr(ctx, out)
}

func (f *file) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	return f.lf.Lseek(ctx, off, whence)
}

// Allocate passes fallocate through, journalling the bytes a hole punch or a zeroed range changes;
// modes that move data (collapse, insert) are refused.
func (f *file) Allocate(ctx context.Context, off uint64, size uint64, mode uint32) syscall.Errno {
	const zeroing = unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_ZERO_RANGE
	if mode&^(unix.FALLOC_FL_KEEP_SIZE|zeroing) != 0 {
		return syscall.EOPNOTSUPP
	}
	return f.change(func() error {
		if mode&zeroing != 0 {
			if err := f.j.save(f.fd, int64(off), int64(off+size)); err != nil {
				return err
			}
		}
		return unix.Fallocate(f.fd, mode, int64(off), int64(size))
	})
}

// change runs fn, a change of the file's data, under the guard and the journal's lock, the durable
// size noted first.
func (f *file) change(fn func() error) syscall.Errno {
	return f.lazy.guard(func() syscall.Errno {
		f.j.mu.Lock()
		defer f.j.mu.Unlock()
		if err := f.j.begin(f.fd); err != nil {
			return errno(err)
		}
		return errno(fn())
	})
}

// truncate sets the file's size, journalled. Callers hold the guard.
func (f *file) truncate(size int64) syscall.Errno {
	f.j.mu.Lock()
	defer f.j.mu.Unlock()
	if err := f.j.begin(f.fd); err != nil {
		return errno(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return errno(err)
	}
	if err := f.j.save(f.fd, min(size, st.Size), max(size, st.Size)); err != nil {
		return errno(err)
	}
	return errno(unix.Ftruncate(f.fd, size))
}
