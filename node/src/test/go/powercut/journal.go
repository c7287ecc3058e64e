package main

import (
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// key names a backing inode: every hard link of a file shares its journal.
type key struct {
	dev, ino uint64
}

func keyOf(st *unix.Stat_t) key {
	return key{dev: st.Dev, ino: st.Ino}
}

// extent is a run of durable bytes, kept because a change since the last sync overwrote or cut
// them off.
type extent struct {
	off  int64
	data []byte
}

func (e extent) end() int64 { return e.off + int64(len(e.data)) }

// journal undoes one inode's changes since its last fsync: its durable size, and the durable bytes
// below that size which a write, a truncate or a hole punch changed since. Bytes beyond the durable
// size need no record: undoing truncates them away. A clean journal (nothing changed since the
// last sync, or since the mount) records nothing.
type journal struct {
	mu    sync.Mutex
	dirty bool
	size  int64    // the durable size, when dirty
	saved []extent // sorted by offset, disjoint, within [0, size)
}

// begin records the durable size before the first change since the last sync. Callers hold mu.
func (j *journal) begin(fd int) error {
	if j.dirty {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	j.dirty, j.size, j.saved = true, st.Size, nil
	return nil
}

// save keeps the durable bytes of [from, to) that are about to change: those below the durable
// size that no change since the last sync saved already. Callers hold mu and called begin.
func (j *journal) save(fd int, from, to int64) error {
	to = min(to, j.size)
	var gaps []extent
	at := from
	for _, e := range j.saved {
		if at >= to {
			break
		}
		if e.end() <= at {
			continue
		}
		if e.off > at {
			gaps = append(gaps, extent{off: at, data: make([]byte, min(e.off, to)-at)})
		}
		at = max(at, e.end())
	}
	if at < to {
		gaps = append(gaps, extent{off: at, data: make([]byte, to-at)})
	}
	for _, gap := range gaps {
		// A gap never reaches past the current end: bytes between it and the durable size were cut
		// off by a truncate, which saved them.
		n, err := unix.Pread(fd, gap.data, gap.off)
		if err != nil {
			return err
		}
		if n > 0 {
			j.saved = append(j.saved, extent{off: gap.off, data: gap.data[:n]})
		}
	}
	if len(gaps) > 0 {
		sort.Slice(j.saved, func(a, b int) bool { return j.saved[a].off < j.saved[b].off })
	}
	return nil
}

// synced forgets the journal: everything the inode holds now is durable.
func (j *journal) synced() {
	j.dirty, j.size, j.saved = false, 0, nil
}

// undo puts the file at path back to its durable contents; it returns the bytes written back and
// the bytes cut off. Callers hold mu.
func (j *journal) undo(path string) (restored, cut int64, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	cut = max(0, st.Size()-j.size)
	if err := f.Truncate(j.size); err != nil {
		return 0, 0, err
	}
	for _, e := range j.saved {
		if _, err := f.WriteAt(e.data, e.off); err != nil {
			return 0, 0, err
		}
		restored += int64(len(e.data))
	}
	return restored, cut, nil
}

// lazy holds the journal of every inode changed since the mount, and the crash.
type lazy struct {
	// mu is held shared by every change, exclusively by the crash: no change is half done when
	// the journals are undone, and none is made after.
	mu      sync.RWMutex
	crashed bool

	tableMu  sync.Mutex
	journals map[key]*journal
}

func newLazy() *lazy {
	return &lazy{journals: map[key]*journal{}}
}

// journalOf is the journal of the inode open as fd.
func (l *lazy) journalOf(fd int) (*journal, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	l.tableMu.Lock()
	defer l.tableMu.Unlock()
	j, ok := l.journals[keyOf(&st)]
	if !ok {
		j = &journal{}
		l.journals[keyOf(&st)] = j
	}
	return j, nil
}

// forget drops the journal of an inode that is gone (its last link removed), so that a new file
// given the same inode number starts clean. Descriptors still open on the old one keep writing
// into the dropped journal, which nothing undoes: the file is gone.
func (l *lazy) forget(k key) {
	l.tableMu.Lock()
	defer l.tableMu.Unlock()
	delete(l.journals, k)
}

// guard runs fn, a change, unless the crash came first: then it fails with EIO, as a disk that
// lost power would.
func (l *lazy) guard(fn func() syscall.Errno) syscall.Errno {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.crashed {
		return syscall.EIO
	}
	return fn()
}

// crash undoes every journal of an inode still linked under backing, found by walking it, and
// fails every change after.
func (l *lazy) crash(backing string) (files int, restored, cut int64, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.crashed = true
	l.tableMu.Lock()
	defer l.tableMu.Unlock()
	undone := map[key]bool{}
	err = filepath.WalkDir(backing, func(path string, d os.DirEntry, walkErr error) error {
		if walkErr != nil || !d.Type().IsRegular() {
			return walkErr
		}
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err != nil {
			return err
		}
		k := keyOf(&st)
		j, ok := l.journals[k]
		if !ok || undone[k] {
			return nil
		}
		undone[k] = true
		j.mu.Lock()
		defer j.mu.Unlock()
		if !j.dirty {
			return nil
		}
		r, c, err := j.undo(path)
		files, restored, cut = files+1, restored+r, cut+c
		return err
	})
	return files, restored, cut, err
}

func errno(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	if e, ok := err.(syscall.Errno); ok {
		return e
	}
	if pe, ok := err.(*os.PathError); ok {
		if e, ok := pe.Err.(syscall.Errno); ok {
			return e
		}
	}
	return syscall.EIO
}
