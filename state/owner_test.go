package state

import (
	"os"
	"syscall"
)

func fileOwner(fi os.FileInfo) uint32 { return fi.Sys().(*syscall.Stat_t).Uid }
