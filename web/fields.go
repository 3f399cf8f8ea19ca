package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// fieldRoutes are the addresses of an account's custom fields.
func (s *Server) fieldRoutes() []route {
	return []route{
		{"GET /a/{slug}/settings/fields", s.page(s.inAccount(taskd.PermSettings, s.fieldsPage))},
		{"POST /a/{slug}/settings/fields", s.form(s.inAccount(taskd.PermSettings, s.addField))},
		{"POST /a/{slug}/settings/fields/{field}/update", s.form(s.inAccount(taskd.PermSettings, s.changeField(false)))},
		{"POST /a/{slug}/settings/fields/{field}/delete", s.form(s.inAccount(taskd.PermSettings, s.changeField(true)))},
	}
}

// fieldsView is the account's custom fields page: the fields of tasks
// and of projects, each with its forms, and the form that adds one.
type fieldsView struct {
	Kinds  []fieldKind
	Types  []string
	Error  *formError
	Values map[string][]string
	Base   string
}

// fieldKind is the fields of tasks or of projects.
type fieldKind struct {
	Of, Title string
	Fields    []taskd.CustomField
}

// fieldsPage is GET /a/{slug}/settings/fields.
func (s *Server) fieldsPage(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	return s.renderFields(w, r, v, me, http.StatusOK, nil)
}

func (s *Server) renderFields(w http.ResponseWriter, r *http.Request, v *view, me member, status int, fe *formError) error {
	acct := me.Account
	fv := &fieldsView{Types: taskd.CustomTypes, Error: fe, Values: r.PostForm, Base: s.cfg.accountPath(acct)}
	for _, k := range []fieldKind{{Of: taskd.ObjectTask, Title: "Fields of tasks"}, {Of: taskd.ObjectProject, Title: "Fields of projects"}} {
		var err error
		if k.Fields, err = s.cfg.Fields.CustomFields(r.Context(), acct.ID, k.Of); err != nil {
			return err
		}
		fv.Kinds = append(fv.Kinds, k)
	}
	v.Title, v.Data = "Custom fields", fv
	return s.renderStatus(w, r, status, "fields.html", v)
}

// fieldForm reads a field's form: name, type, descr and options (one a
// line).
func fieldForm(r *http.Request) taskd.CustomField {
	return taskd.CustomField{Of: r.PostFormValue("of"), Name: r.PostFormValue("name"), Type: r.PostFormValue("type"),
		Descr: r.PostFormValue("descr"), Options: strings.Split(strings.ReplaceAll(r.PostFormValue("options"), "\r\n", "\n"), "\n")}
}

// addField is POST /a/{slug}/settings/fields.
func (s *Server) addField(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	_, err := s.cfg.Fields.AddCustomField(r.Context(), me.actor(), fieldForm(r))
	return s.fieldsChanged(w, r, v, me, "field", err)
}

// changeField is POST /a/{slug}/settings/fields/{field}/update and
// …/delete: renames a field or changes its description and options, or
// deletes it with its values.
func (s *Server) changeField(del bool) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		id, err := taskd.ParseID(r.PathValue("field"), "custom field")
		if err != nil {
			return s.failWith(w, r, err)
		}
		by := me.actor()
		if del {
			err = s.cfg.Fields.DeleteCustomField(r.Context(), by, id)
		} else {
			f := fieldForm(r)
			f.ID = id
			_, err = s.cfg.Fields.UpdateCustomField(r.Context(), by, f)
		}
		if taskd.IsNotFound(err) {
			return s.failWith(w, r, err)
		}
		return s.fieldsChanged(w, r, v, me, "field"+strconv.FormatInt(id, 10), err)
	}
}

// fieldsChanged returns to the fields page, or shows the rule a change
// broke next to its form.
func (s *Server) fieldsChanged(w http.ResponseWriter, r *http.Request, v *view, me member, form string, err error) error {
	if err != nil {
		fe, ok := asFormError(form, err)
		if !ok {
			return err
		}
		if e := taskd.AsError(err); e.Value != "" && !strings.Contains(fe.Message, e.Value) {
			fe.Message += ": " + e.Value
		}
		return s.renderFields(w, r, v, me, formStatus(w, err), fe)
	}
	return see303(w, r, s.cfg.accountPath(me.Account)+"/settings/fields")
}

// fieldInput is a custom field's input on an edit form.
type fieldInput struct {
	Field taskd.CustomField
	Value string
	ID    string // the element's id
}

// Name is the input's name: the parameter the API reads the value from.
func (f fieldInput) Name() string { return taskd.FieldParam(f.Field.ID) }

// fieldInputs are the inputs of the fields on an edit form, holding the
// object's values, or the posted ones when the form is shown again with
// an error.
func fieldInputs(prefix string, fields []taskd.CustomField, values []taskd.FieldValue, posted url.Values, again bool) []fieldInput {
	out := make([]fieldInput, len(fields))
	for i, f := range fields {
		in := fieldInput{Field: f, ID: prefix + "-field" + strconv.FormatInt(f.ID, 10)}
		if again {
			in.Value = posted.Get(in.Name())
		} else if j := slices.IndexFunc(values, func(v taskd.FieldValue) bool { return v.Field.ID == f.ID }); j >= 0 {
			in.Value = values[j].Value
		}
		out[i] = in
	}
	return out
}

// objectValues reads the fields of a kind and an object's values of them.
func (s *Server) objectValues(ctx context.Context, me member, of string, id int64) ([]taskd.CustomField, []taskd.FieldValue, error) {
	fields, err := s.cfg.Fields.CustomFields(ctx, me.Account.ID, of)
	if err != nil || len(fields) == 0 {
		return fields, nil, err
	}
	values, err := s.cfg.Fields.FieldValues(ctx, me.viewer(), of, []int64{id})
	return fields, values[id], err
}

// formFieldValues reads the custom fields' values of a posted form, as
// the API reads custom_fields[ID].
func formFieldValues(r *http.Request) (map[int64]string, error) {
	names := make([]string, 0, len(r.PostForm))
	for name := range r.PostForm {
		names = append(names, name)
	}
	return wire.ParseFieldValues(names, formParams(r))
}
