package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCreateOutput: -o refuses an existing file without -y and never
// writes through a symbolic link, but a device or a named pipe (/dev/null,
// a FIFO a reader waits on) is written to as it is, with or without -y.
func TestCreateOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "exists.csv")
	if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	read := make(chan string, 1)
	go func() { // the FIFO's reader, so that opening it for writing returns
		b, _ := os.ReadFile(fifo)
		read <- string(b)
	}()
	for _, c := range []struct {
		name    string
		path    string
		yes     bool
		wantErr error
	}{
		{"existing file without -y", file, false, fs.ErrExist},
		{"existing file with -y", file, true, nil},
		{"new file", filepath.Join(dir, "new.csv"), false, nil},
		{"symbolic link", link, true, syscall.ELOOP},
		{"device without -y", os.DevNull, false, nil},
		{"named pipe without -y", fifo, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, closeFn, err := createOutput(c.path, c.yes, nil)
			if c.wantErr != nil {
				if err == nil {
					closeFn()
					t.Fatalf("no error, want %v", c.wantErr)
				}
				if c.wantErr == syscall.ELOOP {
					if !strings.Contains(err.Error(), "symbolic link") {
						t.Fatalf("error %v, want one about the link", err)
					}
					return
				}
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("error %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte("x\n")); err != nil {
				t.Fatal(err)
			}
			if err := closeFn(); err != nil {
				t.Fatal(err)
			}
			if c.path == fifo {
				if got := <-read; got != "x\n" {
					t.Errorf("the pipe's reader read %q", got)
				}
			}
		})
	}
}
