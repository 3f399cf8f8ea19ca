package importer

import (
	"context"
	"slices"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/store"
)

// hiddenList is who alone may see a hidden task or comment here (DESIGN
// §10): the members on the source's list, and by, who writes it here and
// sees it as its author. Someone on the list who is not a member (yet) is
// left off it and reported: they do not see it. faithful is false when
// by is the owner writing for an author who is not a member who may work,
// and the owner is not on the source's list: written so, the object would
// be seen by someone the source hid it from, so it is not made.
func (r *run) hiddenList(family, id, what string, list []source.Person, author source.Person, by taskd.Actor) (emails []string, faithful bool) {
	faithful = r.email(author) == by.Person.Email
	for _, p := range list {
		e := r.email(p)
		if e == "" {
			r.skip(family, id, "%s, on the hidden list of %s, is not a member (yet): left off it, they do not see it", p.Email, what)
			continue
		}
		faithful = faithful || e == by.Person.Email
		if !slices.Contains(emails, e) {
			emails = append(emails, e)
		}
	}
	if !slices.Contains(emails, by.Person.Email) {
		emails = append(emails, by.Person.Email)
	}
	slices.Sort(emails)
	if !faithful {
		r.skip(family, id, "%s is hidden and its author %s is not a member who may write here: written by the owner, who is not on its hidden list, it would be seen by more people than in the source; not imported (run again once they join)",
			what, author.Email)
	}
	return emails, faithful
}

// hiddenKept keeps, under the mapping kind+"_hidden" (its fingerprint the
// e-mails), the hidden list an object was made with (list, "" for none),
// and reports a mapped object whose list in the source is another now:
// taskd does not change who sees a task or comment once it is made, so it
// is left as it is and reported on every run until the source's list is
// the same again. An object mapped without its list (made before lists
// were kept, or by a run stopped before it kept it) keeps the current one.
func (r *run) hiddenKept(ctx context.Context, family, kind, id, what string, list []string, done map[string]store.ImportMapping) error {
	fp := strings.Join(list, ",")
	m, ok := done[id]
	switch {
	case !ok:
		if r.opts.DryRun {
			return nil
		}
		return r.dst.Store.SetImportMapping(ctx, r.key(kind+"_hidden", id), store.ImportMapping{Fingerprint: fp})
	case m.Fingerprint != fp:
		r.skip(family, id, "%s was imported seen by %s; in the source it is now seen by %s: taskd does not change who sees it once made, left as it is",
			what, seenBy(m.Fingerprint), seenBy(fp))
	}
	return nil
}

// seenBy names who sees an object by its hidden list ("" for none).
func seenBy(list string) string {
	if list == "" {
		return "everyone who sees its project"
	}
	return "only " + strings.ReplaceAll(list, ",", ", ")
}
