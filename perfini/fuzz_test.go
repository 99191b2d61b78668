package perfini

import (
	"os"
	"path/filepath"
	"testing"
)

// seedINI and seedH are the fixture pair, the start of every corpus
// (testdata/fuzz holds more).
func seeds(f *testing.F) (ini, h []byte) {
	ini, err := os.ReadFile(filepath.Join("testdata", "transfer", "Transfer.ini"))
	if err != nil {
		f.Fatal(err)
	}
	h, err = os.ReadFile(filepath.Join("testdata", "transfer", "TransferOffsets.h"))
	if err != nil {
		f.Fatal(err)
	}
	return ini, h
}

// FuzzParseINI: any bytes are parsed or refused with an *Error, never a
// panic, and what is accepted keeps ParseINI's promises.
func FuzzParseINI(f *testing.F) {
	ini, _ := seeds(f)
	f.Add(ini)
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseINI("f.ini", b)
		if err != nil {
			return
		}
		if p.DriverName == "" || p.SymbolFile == "" || len(p.Languages) == 0 {
			t.Fatalf("accepted without driver, symbol file or language: %+v", p)
		}
		for _, r := range p.Text {
			if _, ok := parseLang(r.Lang); !ok || r.Symbol == "" {
				t.Fatalf("accepted text key %+v", r)
			}
		}
	})
}

// FuzzParseSymbols: any bytes are parsed or refused, never a panic; every
// macro's offset evaluates or is refused with the symbol file's line.
func FuzzParseSymbols(f *testing.F) {
	_, h := seeds(f)
	f.Add(h)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSymbols("f.h", b)
		if err != nil {
			return
		}
		for i := range s.defs {
			if _, err := s.offset(i); err != nil {
				if e, ok := err.(*Error); !ok || e.Line == 0 {
					t.Fatalf("offset of %q: %v has no line", s.defs[i].name, err)
				}
			}
		}
	})
}

// FuzzResolve: any pair of files is resolved or refused; what is resolved
// has the offsets 0, 2, ... each with a name.
func FuzzResolve(f *testing.F) {
	ini, h := seeds(f)
	f.Add(ini, h)
	f.Add([]byte("[info]\ndrivername=d\nsymbolfile=s.h\n[languages]\n009=\n[objects]\nA_009_NAME=\n[text]\nA_009_NAME=a\nb_009_name=b\n"), []byte("#define A 0\n#define B 0x2\n"))
	f.Fuzz(func(t *testing.T, ib, hb []byte) {
		ini, err := ParseINI("f.ini", ib)
		if err != nil {
			return
		}
		syms, err := ParseSymbols("f.h", hb)
		if err != nil {
			return
		}
		p, err := Resolve(ini, syms)
		if err != nil {
			return
		}
		for i, n := range p.Names {
			if n.Offset != uint32(2*i) || n.Name == "" {
				t.Fatalf("name %d: %+v", i, n)
			}
		}
	})
}
