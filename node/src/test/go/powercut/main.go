// Command powercut mounts a "lazy" file system: a FUSE loopback of a backing directory that can
// lose, on command, everything written to it and never made durable, as a power cut loses what
// sits in the page cache. The node's process tests put data directories on it
// (node/src/test/java/io/kvorum/node/testing/LazyFileSystem.java).
//
// Usage: powercut BACKING MOUNTPOINT (as root: it mounts with mount(2) itself, no fusermount).
//
// It prints "mounted" once the mount is ready, then reads commands on stdin, one a line:
//
//	crash    every change not made durable is undone, the file system unmounted; exit 0
//	unmount  (or the end of stdin) unmounted keeping everything; exit 0
//
// The model, per inode of the backing file system (so every hard link of a file shares it):
//
//   - A write reaches the backing file at once, so reads need no model; the program keeps an undo
//     journal of the bytes each write overwrote below the file's durable size, and that size.
//     A truncate (ftruncate, truncate, O_TRUNC) and a hole punch or zeroed range of fallocate are
//     journalled the same way; fallocate that only reserves space changes no data.
//   - fsync and fdatasync of a file make it durable as it is: its journal is forgotten. close(2)
//     (FUSE's flush and release) does not. sync_file_range never reaches a FUSE file system, and
//     makes nothing durable here either.
//   - Metadata operations (create, mkdir, rename, link, unlink, rmdir, symlink) take effect at once
//     and are kept through a crash, as LazyFS does by default: a file created since the mount and
//     never synced is there after the crash, empty; a file renamed over another keeps the new name
//     with what of its data was durable. Directory fsync is accepted and changes nothing.
//   - Files that existed before the mount are durable as they are.
//   - The crash undoes each journal, in reverse of its changes: the overwritten bytes written back,
//     the file truncated to its durable size. Inodes are found by walking the backing tree;
//     journals of inodes no longer linked are dropped. After it every change fails with EIO.
//
// The kernel sends every write to this program (go-fuse asks for no write-back cache) and the
// files offer no FUSE passthrough, so no write goes around the journal. The backing files are
// never fsynced: the machine has no power cut, only this model does. What the model does not do: a
// real disk may also have written back some of what was not synced (the model keeps none of it, the
// worst case), may tear a write at a sector, and a journalling file system may lose a metadata
// change that was not synced (the model keeps them all).
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: powercut BACKING MOUNTPOINT")
		os.Exit(2)
	}
	backing, err := filepath.Abs(os.Args[1])
	check(err)
	mountpoint, err := filepath.Abs(os.Args[2])
	check(err)
	var st unix.Stat_t
	check(unix.Stat(backing, &st))

	l := newLazy()
	rootData := &fs.LoopbackRoot{Path: backing, Dev: st.Dev}
	root := &node{LoopbackNode: &fs.LoopbackNode{RootData: rootData}, lazy: l}
	rootData.RootNode = root
	server, err := fs.Mount(mountpoint, root, &fs.Options{
		MountOptions: fuse.MountOptions{
			DirectMountStrict: true,
			FsName:            backing,
			Name:              "powercut",
			Debug:             os.Getenv("POWERCUT_DEBUG") != "",
		},
	})
	check(err)
	fmt.Println("mounted")

	commands := make(chan string)
	go func() {
		lines := bufio.NewScanner(os.Stdin)
		for lines.Scan() {
			commands <- lines.Text()
		}
		close(commands)
	}()
	unmounted := make(chan struct{})
	go func() {
		server.Wait()
		close(unmounted)
	}()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)

	for {
		select {
		case command, open := <-commands:
			switch {
			case !open || command == "unmount":
				unmount(server, mountpoint)
				return
			case command == "crash":
				files, restored, cut, err := l.crash(backing)
				unmount(server, mountpoint)
				check(err)
				fmt.Printf("crashed: %d files rolled back, %d bytes written back, %d bytes cut off\n",
					files, restored, cut)
				return
			default:
				fmt.Fprintf(os.Stderr, "powercut: unknown command %q (crash, unmount)\n", command)
			}
		case <-signals:
			unmount(server, mountpoint)
			return
		case <-unmounted:
			fmt.Fprintln(os.Stderr, "powercut: unmounted by someone else")
			os.Exit(1)
		}
	}
}

// unmount unmounts, lazily (detached now, gone once no process uses it) if it is busy.
func unmount(server *fuse.Server, mountpoint string) {
	if err := server.Unmount(); err != nil {
		fmt.Fprintf(os.Stderr, "powercut: %v; detaching %s\n", err, mountpoint)
		check(unix.Unmount(mountpoint, unix.MNT_DETACH))
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "powercut:", err)
		os.Exit(1)
	}
}
