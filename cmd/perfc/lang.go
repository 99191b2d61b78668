package main

import (
	"fmt"

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
