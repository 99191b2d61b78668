package host

import (
	"os"
	"strings"
)

// ComputerName returns this computer's name as Windows prints it in
// counter paths and PERF_DATA_BLOCK headers: the host name's first label
// in upper case (Windows' computer name is the NetBIOS name, stored and
// printed upper case, without the DNS domain: typeperf writes
// `\\WEB01\Memory\...` on the machine web01.example.com). "LOCALHOST"
// when the host name cannot be read.
func ComputerName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "LOCALHOST"
	}
	if i := strings.IndexByte(h, '.'); i > 0 {
		h = h[:i]
	}
	return strings.ToUpper(h)
}
