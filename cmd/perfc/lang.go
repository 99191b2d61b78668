package main

import (
	"fmt"
	"strings"

	"github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
)

// langHelp is the -lang option's help line, the same in every command.
const langHelp = "Language of counter names: a Perflib id (009 English, 007 German, 00C French, 011 Japanese, ...) or a tag such as de-DE. Default: the locale (LC_ALL, LC_MESSAGES, LANG), English when it names none. Names not registered in the language stay English, and English paths are accepted beside the language's."

// chooseLang is the language of the -lang option, or of the environment's
// locale when the option is empty.
func chooseLang(e *env, opt string) (titles.Lang, error) {
	if opt == "" {
		return titles.LangFromEnv(e.getenv), nil
	}
	l, err := titles.ParseLang(opt)
	if err != nil {
		return 0, usagef("-lang: %v", err)
	}
	return l, nil
}

// langNames returns the names a person working in language l reads (the
// language's names over the English ones) and the English names, for
// pdh.Query.SetTitles; nil, nil for English or a language with no names
// registered (said once as a warning when the user asked for it).
func langNames(e *env, l titles.Lang, english, local *titles.DB, asked bool, warn func(string)) (*titles.DB, *titles.DB) {
	if l == titles.LangEnglish {
		return nil, nil
	}
	if local == nil {
		if asked {
			warn(fmt.Sprintf("no counter names are registered in language %s: names are English", langName(l)))
		}
		return nil, nil
	}
	return titles.Over(english, local), english
}

func langName(l titles.Lang) string {
	if t := l.Tag(); t != "" {
		return l.String() + " (" + t + ")"
	}
	return l.String()
}

// relogNames is relog -lang: the log's names (logDB) in language l where
// that language names the same index (English: Windows' English list and
// this computer's registered names; another language: the names
// registered in it), with a warning that counts and names the first of
// the log's names left as they are.
func relogNames(e *env, l titles.Lang, logDB *titles.DB, warn func(string)) (*titles.DB, error) {
	var target *titles.DB
	if l == titles.LangEnglish {
		db, err := localTitles(e)
		if err != nil {
			return nil, err
		}
		target = db
	} else {
		hopts, err := hostOptions(e)
		if err != nil {
			return nil, err
		}
		if target, err = state.LangTitles(hopts.StateDir, l); err != nil {
			return nil, err
		}
	}
	if target == nil {
		warn(fmt.Sprintf("no counter names are registered in language %s: the log's names are kept", langName(l)))
		return nil, nil
	}
	if miss := titles.Missing(logDB, target); len(miss) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%d of the log's names have no name in language %s and are kept as in the log", len(miss), langName(l))
		for i, idx := range miss[:min(5, len(miss))] {
			sep := ": "
			if i > 0 {
				sep = ", "
			}
			fmt.Fprintf(&b, "%s%q", sep, logDB.Name(idx))
		}
		if len(miss) > 5 {
			b.WriteString(", ...")
		}
		warn(b.String())
	}
	return titles.Over(logDB, target), nil
}
