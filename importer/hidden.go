package importer

import (
	"context"
	"slices"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
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
// and follows a mapped object whose list in the source is another now:
// who alone may see it here becomes the source's list (Store.SetViewers),
// so what the source hides from someone is hidden from them here too. An
// object mapped without its list (made before lists were kept, or by a run
// stopped before it kept it) keeps the current one.
func (r *run) hiddenKept(ctx context.Context, family, kind, id, what string, local int64, list []string, done map[string]taskd.ImportMapping) error {
	fp := strings.Join(list, ",")
	m, ok := done[id]
	if (ok && m.Fingerprint == fp) || r.opts.DryRun {
		return nil
	}
	if ok {
		if err := r.dst.Store.SetViewers(ctx, r.owner, kind, local, list); err != nil {
			r.skip(family, id, "%s is seen by %s in the source; here it is still seen by %s: %v", what, seenBy(fp), seenBy(m.Fingerprint), err)
			return nil
		}
	}
	return r.dst.Store.SetImportMapping(ctx, r.key(kind+"_hidden", id), taskd.ImportMapping{Fingerprint: fp})
}

// seenBy names who sees an object by its hidden list ("" for none).
func seenBy(list string) string {
	if list == "" {
		return "everyone who sees its project"
	}
	return "only " + strings.ReplaceAll(list, ",", ", ")
}
