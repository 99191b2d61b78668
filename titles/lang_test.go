package titles

import (
	"slices"
	"testing"
)

func TestParseLang(t *testing.T) {
	cases := []struct {
		in   string
		want Lang
		ok   bool
	}{
		{"009", 0x009, true},
		{"007", 0x007, true},
		{"00C", 0x00C, true},
		{"00c", 0x00C, true},
		{"011", 0x011, true},
		{"0x012", 0x012, true},
		{"409", 0x009, true},  // a whole LANGID: en-US
		{"0407", 0x007, true}, // de-DE
		{"804", 0x804, true},  // zh-CN: Chinese keeps its sublanguage
		{"404", 0x404, true},  // zh-TW, apart from zh-CN
		{"0x0804", 0x804, true},
		{"004", 0x804, true}, // primary-only Chinese is zh-CN, as lodctr takes it
		{"416", 0x416, true}, // pt-BR
		{"816", 0x816, true}, // pt-PT, apart from pt-BR
		{"016", 0x416, true},
		{"zh-TW", 0x404, true},
		{"zh_TW.UTF-8", 0x404, true},
		{"zh-Hant-HK", 0x404, true},
		{"zh-CN", 0x804, true},
		{"zh", 0x804, true},
		{"pt-PT", 0x816, true},
		{"pt_PT.UTF-8", 0x816, true},
		{"pt", 0x416, true},
		{"de", 0x007, true},
		{"de-DE", 0x007, true},
		{"fr-CA", 0x00C, true},
		{"zh-Hans", 0x804, true},
		{"ja_JP.UTF-8", 0x011, true},
		{"ko_KR.eucKR", 0x012, true},
		{"pt_BR@x", 0x416, true},
		{"no", 0x014, true},
		{"C", 0x009, true},
		{"POSIX", 0x009, true},
		{"", 0, false},
		{"000", 0, false},
		{"klingon", 0, false},
		{"12345", 0, false},
		{"xx-YY", 0, false},
	}
	for _, c := range cases {
		got, err := ParseLang(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseLang(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
	for l, want := range map[Lang]string{0x00C: "00C", 0x804: "804", 0x404: "404", 0x816: "816"} {
		if s := l.String(); s != want {
			t.Errorf("String = %q, want %s", s, want)
		}
	}
}

func TestLangFromEnv(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want Lang
	}{
		{nil, LangEnglish},
		{map[string]string{"LANG": "de_DE.UTF-8"}, 0x007},
		{map[string]string{"LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR"}, 0x00C},
		{map[string]string{"LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR", "LC_ALL": "ja_JP"}, 0x011},
		{map[string]string{"LANG": "C.UTF-8"}, LangEnglish},
		{map[string]string{"LANG": "tlh_XX"}, LangEnglish},
	}
	for _, c := range cases {
		if got := LangFromEnv(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("LangFromEnv(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}

func TestOverAndMissing(t *testing.T) {
	en := New()
	for _, n := range []struct {
		i          uint32
		name, help string
	}{{2, "System", "System help"}, {4, "Memory", "Memory help"}, {6, "% Processor Time", "cpu help"}} {
		if err := en.SetAt(n.i, n.name, n.help); err != nil {
			t.Fatal(err)
		}
	}
	de := New()
	if err := de.SetAt(4, "Arbeitsspeicher", "Hilfe"); err != nil {
		t.Fatal(err)
	}
	o := Over(en, de)
	for i, want := range map[uint32]string{2: "System", 4: "Arbeitsspeicher", 6: "% Processor Time"} {
		if got := o.Name(i); got != want {
			t.Errorf("Over name %d = %q, want %q", i, got, want)
		}
	}
	if o.Help(5) != "Hilfe" || o.Help(3) != "System help" {
		t.Errorf("Over helps %q %q", o.Help(5), o.Help(3))
	}
	if i, ok := o.Index("arbeitsspeicher"); !ok || i != 4 {
		t.Errorf("Over Index = %d %v", i, ok)
	}
	if en.Name(4) != "Memory" || de.Name(2) != "" {
		t.Error("Over changed its inputs")
	}
	if got := Missing(en, de); !slices.Equal(got, []uint32{2, 6}) {
		t.Errorf("Missing = %v, want [2 6]", got)
	}
}
