package collect

import (
	"fmt"
	"strconv"
	"strings"
)

// The environment variables through which the engine hands an
// out-of-process provider registered from a V1 .ini file the values
// Windows' lodctr writes under the service's Performance key
// (PROTOCOL.md, "The provider's title indexes").
const (
	EnvFirstCounter = "PERFC_FIRST_COUNTER"
	EnvFirstHelp    = "PERFC_FIRST_HELP"
	EnvLastCounter  = "PERFC_LAST_COUNTER"
	EnvLastHelp     = "PERFC_LAST_HELP"
)

// Indexes are a provider's First Counter, First Help, Last Counter and
// Last Help: the first and last title index lodctr gave its names, and
// their help indexes. A provider's object or counter at offset o (its
// symbol file's #define) has the name index FirstCounter+o and the help
// index FirstHelp+o, as a Windows performance DLL computes them from its
// Performance key in its Open function.
type Indexes struct {
	FirstCounter, FirstHelp, LastCounter, LastHelp uint32
}

// Environ returns the four variables as NAME=VALUE strings.
func (ix Indexes) Environ() []string {
	return []string{
		EnvFirstCounter + "=" + strconv.FormatUint(uint64(ix.FirstCounter), 10),
		EnvFirstHelp + "=" + strconv.FormatUint(uint64(ix.FirstHelp), 10),
		EnvLastCounter + "=" + strconv.FormatUint(uint64(ix.LastCounter), 10),
		EnvLastHelp + "=" + strconv.FormatUint(uint64(ix.LastHelp), 10),
	}
}

// valid reports whether the four values are a range of even name indexes
// with their help indexes.
func (ix Indexes) valid() bool {
	return ix.FirstCounter > 0 && ix.FirstCounter%2 == 0 && ix.LastCounter >= ix.FirstCounter && ix.LastCounter%2 == 0 &&
		ix.FirstHelp == ix.FirstCounter+1 && ix.LastHelp == ix.LastCounter+1
}

// IndexesFromEnv reads the four variables with getenv (os.Getenv in a
// provider's main): what a Go provider calls before serving, as a
// Windows DLL reads First Counter and First Help in its Open function. A
// variable that is missing or not a number, or values that are not a
// range of even name indexes with their help indexes, are an error: the
// provider was not registered from an .ini file, or not started by perfc.
func IndexesFromEnv(getenv func(string) string) (Indexes, error) {
	var ix Indexes
	for _, v := range []struct {
		name string
		dst  *uint32
	}{{EnvFirstCounter, &ix.FirstCounter}, {EnvFirstHelp, &ix.FirstHelp}, {EnvLastCounter, &ix.LastCounter}, {EnvLastHelp, &ix.LastHelp}} {
		s := getenv(v.name)
		if s == "" {
			return Indexes{}, fmt.Errorf("%s is not set: register the provider from its .ini file (perfc lodctr FILE.ini)", v.name)
		}
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return Indexes{}, fmt.Errorf("%s=%q is not a title index", v.name, s)
		}
		*v.dst = uint32(n)
	}
	if !ix.valid() {
		return Indexes{}, fmt.Errorf("%s=%d %s=%d %s=%d %s=%d are not a range of even name indexes and their help indexes",
			EnvFirstCounter, ix.FirstCounter, EnvFirstHelp, ix.FirstHelp, EnvLastCounter, ix.LastCounter, EnvLastHelp, ix.LastHelp)
	}
	return ix, nil
}

// providerEnv returns the environment a provider starts with: env (the
// engine's own when nil) without any of the four variables, then the
// values of ix when it is set. A provider never sees values the engine
// itself inherited.
func providerEnv(env []string, environ func() []string, ix *Indexes) []string {
	if env == nil {
		env = environ()
	}
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case EnvFirstCounter, EnvFirstHelp, EnvLastCounter, EnvLastHelp:
			continue
		}
		out = append(out, kv)
	}
	if ix != nil {
		out = append(out, ix.Environ()...)
	}
	return out
}
