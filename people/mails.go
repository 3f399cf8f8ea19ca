package people

import (
	"bytes"
	htmltemplate "html/template"
	"text/template"

	"github.com/taskd/taskd/mail"
)

// Each message is plain text with an HTML alternative, made from one set
// of values by a text and an HTML template.
var (
	textMails = template.Must(template.New("").Parse(`
{{define "invitation"}}Hello,

{{.By}} invited you to {{.Account}} on taskd, where the team keeps its projects and tasks.

Accept the invitation:
{{.Link}}

The link works once, for 7 days. If you do not know {{.By}}, ignore this message.
{{end}}
{{define "reset"}}Hello,

Someone asked to reset the password of your taskd sign-in ({{.To}}). To choose a new one, open:
{{.Link}}

The link works once, for one hour. If you did not ask, ignore this message: your password stays as it is.
{{end}}
{{define "email"}}Hello {{.Name}},

To use this address ({{.To}}) for your taskd sign-in, open:
{{.Link}}

The link works once, for 24 hours. If you did not ask, ignore this message.
{{end}}`))
	htmlMails = htmltemplate.Must(htmltemplate.New("").Parse(`
{{define "invitation"}}<p>Hello,</p>
<p>{{.By}} invited you to <strong>{{.Account}}</strong> on taskd, where the team keeps its projects and tasks.</p>
<p><a href="{{.Link}}">Accept the invitation</a></p>
<p style="color:#555">The link works once, for 7 days. If you do not know {{.By}}, ignore this message.</p>{{end}}
{{define "reset"}}<p>Hello,</p>
<p>Someone asked to reset the password of your taskd sign-in ({{.To}}).</p>
<p><a href="{{.Link}}">Choose a new password</a></p>
<p style="color:#555">The link works once, for one hour. If you did not ask, ignore this message: your password stays as it is.</p>{{end}}
{{define "email"}}<p>Hello {{.Name}},</p>
<p>To use this address ({{.To}}) for your taskd sign-in, confirm it:</p>
<p><a href="{{.Link}}">Confirm the address</a></p>
<p style="color:#555">The link works once, for 24 hours. If you did not ask, ignore this message.</p>{{end}}`))
)

// mailValues fill the templates.
type mailValues struct {
	To, Name, Account, By, Link string
}

func render(name, subject string, v mailValues) mail.Message {
	var text, html bytes.Buffer
	if err := textMails.ExecuteTemplate(&text, name, v); err != nil {
		panic(err) // the templates are fixed: a failure is a bug
	}
	if err := htmlMails.ExecuteTemplate(&html, name, v); err != nil {
		panic(err)
	}
	return mail.Message{To: v.To, Subject: subject, Text: text.String(), HTML: html.String()}
}

func invitationMail(to, account, by, link string) mail.Message {
	if by == "" {
		by = "The owner of " + account
	}
	// The subject carries none of the account's words (its name, the
	// inviter's): mail to an address someone else chose must not be a
	// channel for their text where a mail client shows it first.
	return render("invitation", "You are invited to join a team on taskd", mailValues{To: to, Account: account, By: by, Link: link})
}

func resetMail(to, link string) mail.Message {
	return render("reset", "Reset your taskd password", mailValues{To: to, Link: link})
}

func emailChangeMail(to, name, link string) mail.Message {
	return render("email", "Confirm your new taskd address", mailValues{To: to, Name: name, Link: link})
}
