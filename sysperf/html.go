package sysperf

import (
	_ "embed"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"
)

//go:embed report.html.tmpl
var pageText string

// WriteHTML writes the report as one self-contained HTML page: styles
// inline, no script, no image and no address outside the page (it opens
// offline and from a mail attachment); every number links to its
// counter's line in the page's counter table.
func (r *Report) WriteHTML(w io.Writer) error {
	list := r.SeriesList()
	ids := make(map[*Series]string, len(list))
	for i, s := range list {
		ids[s] = "c" + strconv.Itoa(i+1)
	}
	page, err := template.New("report").Funcs(template.FuncMap{
		"anchor": func(s *Series) string { return ids[s] },
		"num":    formatNumber,
		"pct":    pct,
		"join":   strings.Join,
		"slug":   func(s string) string { return strings.ReplaceAll(strings.ToLower(s), " ", "-") },
	}).Parse(pageText)
	if err != nil {
		return err
	}
	const layout = "2006-01-02 15:04:05 MST"
	return page.Execute(w, struct {
		R          *Report
		Series     []*Series
		Start, End string
	}{r, list, r.Start.Format(layout), r.End.Format(layout)})
}

// DefaultFileName is the name of a report file made at t, as Windows
// names its report folders by computer and date.
func DefaultFileName(computer string, t time.Time) string {
	c := strings.Map(func(r rune) rune {
		if r == '/' || r == 0 || r == '\\' {
			return '_'
		}
		return r
	}, computer)
	return "perfc-report-" + c + "-" + t.Format("20060102-150405") + ".html"
}
