package web

import (
	"html"
	"html/template"
	"strconv"
	"strings"
)

// A timeline of 500 tasks must be served in 100 ms (docs/performance.md):
// through html/template its rows alone took most of that, so each group's
// rows are written here, every text and attribute escaped with
// html.EscapeString (which escapes <, >, &, ' and "), and the template
// places them (timelineGroup.Body).

// writeRows writes the rows of a group: each task's name (and the link to
// its dates form, for those who may change it), then its cells.
func (tv *timelineView) writeRows(g *timelineGroup) {
	var sb strings.Builder
	sb.Grow(len(g.Rows) * 700)
	esc := html.EscapeString
	edit := esc(tv.Self() + "&edit=")
	for _, b := range g.Rows {
		id := strconv.FormatInt(b.ID, 10)
		sb.WriteString(`<tr data-task="` + id + `" data-start="` + esc(b.DateStart) + `" data-end="` + esc(b.DateEnd) + `">`)
		sb.WriteString(`<th scope="row" class="tl-name`)
		if b.Sub {
			sb.WriteString(` sub`)
		}
		sb.WriteString(`"><span class="tl-title">` + esc(b.Name) + `</span>`)
		if b.Parent != "" {
			sb.WriteString(` <span class="muted">in ` + esc(b.Parent) + `</span>`)
		}
		if b.Other != "" {
			sb.WriteString(` <span class="muted">· ` + esc(b.Other) + `</span>`)
		}
		if b.Waits != "" {
			sb.WriteString(` <span class="muted tl-waits">` + esc(b.Waits) + `</span>`)
		}
		if tv.CanWrite {
			sb.WriteString(` <a class="tl-edit-link" href="` + edit + id + `#tl-edit">Dates<span class="inline-label"> of ` + esc(b.Name) + `</span></a>`)
		}
		sb.WriteString(`</th>`)
		for _, c := range b.Cells {
			switch {
			case c.Bar:
				sb.WriteString(`<td colspan="` + strconv.Itoa(c.Span) + `" class="tl-cell"><a class="` + b.Class() + `" href="` + esc(tv.Base+b.Page()) + `" draggable="false">`)
				if b.Point {
					sb.WriteString(`<span class="inline-label">` + esc(b.Label()) + `</span>`)
				} else {
					sb.WriteString(`<span class="tl-bar-name">` + esc(b.Name) + `</span><span class="inline-label">: ` + esc(b.Dates))
					if b.Done {
						sb.WriteString(`, done`)
					} else if b.Overdue {
						sb.WriteString(`, overdue`)
					}
					sb.WriteString(`</span>`)
				}
				sb.WriteString(`</a></td>`)
			case c.Now:
				sb.WriteString(`<td class="tl-now"></td>`)
			default:
				sb.WriteString(`<td colspan="` + strconv.Itoa(c.Span) + `"></td>`)
			}
		}
		sb.WriteString("</tr>\n")
	}
	g.Body = template.HTML(sb.String())
}
