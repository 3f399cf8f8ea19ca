package web

import (
	"context"
	"strings"

	"github.com/taskd/taskd"
)

// drawDependencies puts the relations between the chart's rows on it: an
// arrow for each (timeline.js draws them over the bars) and, in words
// under each row's name, the tasks it waits for, so that a page without
// the script says what the arrows show. Only relations whose two tasks
// are rows of the chart are drawn, and the store gives only those whose
// two tasks the viewer sees.
func (s *Server) drawDependencies(ctx context.Context, viewer taskd.Viewer, c *timelineChart) error {
	rows := map[int64]*timelineBar{}
	var ids []int64
	for gi := range c.Groups {
		for ri := range c.Groups[gi].Rows {
			b := &c.Groups[gi].Rows[ri]
			rows[b.ID] = b
			ids = append(ids, b.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rels, err := s.cfg.Relations.Relations(ctx, viewer, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		b := rows[id]
		var waits []string
		for _, r := range rels[id].From {
			from, shown := rows[r.From]
			if !shown {
				continue
			}
			c.Arrows = append(c.Arrows, timelineArrow{From: r.From, To: r.To, Type: r.Type})
			if r.Type == taskd.RelationStartToStart {
				waits = append(waits, "starts with "+from.Name)
			} else {
				waits = append(waits, "after "+from.Name)
			}
		}
		b.Waits = strings.Join(waits, ", ")
	}
	return nil
}
