package titles

import (
	"strings"
	"testing"
)

// TestLocalizedTables: every recorded table parses, names English names
// of Windows' list (or Processor Information, which the list of 2007
// predates), and maps its names back to them.
func TestLocalizedTables(t *testing.T) {
	langs := LocalizedLangs()
	if len(langs) < 2 {
		t.Fatalf("recorded languages %v, want German and French at least", langs)
	}
	for _, l := range langs {
		tab := localized()[l]
		for en, name := range tab.byEnglish {
			if _, ok := EnglishIndex(en); !ok && en != strings.ToLower("Processor Information") {
				t.Errorf("%s: %q is not an English Windows name", l, en)
			}
			if back, ok := EnglishOf(l, name); ok && !strings.EqualFold(back, en) {
				t.Errorf("%s: %q maps back to %q, not %q", l, name, back, en)
			}
		}
	}
	if n, ok := LocalizedName(0x07, "% processor time"); !ok || n != "Prozessorzeit (%)" {
		t.Errorf("German %% Processor Time: %q %v", n, ok)
	}
	db := Localize(English(), 0x0C, nil)
	if db.Name(238) != "Processeur" || db.Name(2) != "Système" {
		t.Errorf("French 238, 2: %q, %q", db.Name(238), db.Name(2))
	}
	if Localize(English(), 0x19, nil) != nil {
		t.Error("Russian has no recorded names: want nil")
	}
}
