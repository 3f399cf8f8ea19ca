package api_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/taskd/taskd/api"
)

// TestSearchLanguage: search_tasks answers the query language of spec §4
// on both databases: every field and operator, braced and bare, and/or
// and parentheses; archived projects only when named; a malformed filter
// is code 11 naming the offending part.
func TestSearchLanguage(t *testing.T) {
	eachAccount(t, func(t *testing.T, a *account) {
		p1 := a.id("action", "post_project", "title", "Site")
		p2 := a.id("action", "post_project", "title", "Old")
		post := func(pid, name string, pairs ...string) string {
			return a.ok(append([]string{"action", "post_task", "id_project", pid, "title", name}, pairs...)...).data()["id"].(string)
		}
		report := post(p1, "Monthly Report", "datestart", "01.05.2021", "dateend", "28.05.2021")
		approval := post(p1, "Approval of budget", "dateend", "31.05.2021")
		post(p1, "Report", "dateend", "10.06.2021")
		child := post(p1, "Report appendix", "id_parent", report)
		post(p1, "100% done_item")
		post(p2, "Archived report")
		a.ok("action", "complete_task", "id_task", child)
		a.ok("action", "close_project", "id_project", p2)

		names := func(pairs ...string) string {
			t.Helper()
			var out []string
			for _, x := range a.ok(append([]string{"action", "search_tasks"}, pairs...)...).list() {
				out = append(out, x.(map[string]any)["name"].(string))
			}
			sort.Strings(out)
			return strings.Join(out, "|")
		}
		today := strings.Split(a.ok("action", "get_task", "id_task", report).data()["date_added"].(string), " ")[0]
		parts := strings.Split(today, "-")
		todayIn := parts[2] + "." + parts[1] + "." + parts[0]
		for filter, want := range map[string]string{
			"name {has} 'Report'": "Monthly Report|Report|Report appendix",
			"name has 'report'":   "Monthly Report|Report|Report appendix", // case-insensitive; archived project left out
			"name{=}'Report'":     "Report",
			"name = 'report'":     "",
			"name has '100%'":     "100% done_item",
			"name has '_'":        "100% done_item",
			"id {in} (" + report + ", " + approval + ")": "Approval of budget|Monthly Report",
			"id=" + report:                     "Monthly Report",
			"parent = " + report:               "Report appendix",
			"parent = 0 and name has 'Report'": "Monthly Report|Report",
			"project{=}" + p1 + " and dateend>'25.05.2021' and dateend<'31.05.2021'":                          "Monthly Report",
			"(name has 'Report' or name has 'Approval') and (dateend>'25.05.2021' and dateend<='31.05.2021')": "Approval of budget|Monthly Report",
			"datestart = '01.05.2021'":                        "Monthly Report",
			"date_start != '01.05.2021'":                      "",
			"dateend >= '2021-06-10'":                         "Report",
			"dateadd = '" + todayIn + "'":                     "100% done_item|Approval of budget|Monthly Report|Report|Report appendix",
			"dateadd > '" + todayIn + "'":                     "",
			"dateadd <= '" + todayIn + "' and name has 'app'": "Approval of budget|Report appendix",
			"dateclose = '" + todayIn + "'":                   "Report appendix",
			"dateclose < '" + todayIn + "'":                   "",
		} {
			if got := names("filter", filter); got != want {
				t.Errorf("filter %q: %q, want %q", filter, got, want)
			}
		}
		if got := names("id_project", p2, "filter", "name has 'report'"); got != "Archived report" {
			t.Errorf("a named archived project: %q", got)
		}
		if got := names("id_task", report); got != "Monthly Report|Report appendix" {
			t.Errorf("id_task: %q", got)
		}
		a.fails(api.CodeFieldRequired, "action", "search_tasks", "status", "active")
		for filter, part := range map[string]string{
			"report":                "report",
			"name has 'x' or":       "filter",
			"project = 'abc'":       "abc",
			"dateend > 'tomorrow'":  "tomorrow",
			"name > 'x'":            "name >",
			"name has 'x'; drop it": ";",
			"id in (1, 2":           "filter",
		} {
			r := a.fails(api.CodeInvalidValue, "action", "search_tasks", "filter", filter)
			if r.Body["message_details"] != part {
				t.Errorf("filter %q: details %v, want %q", filter, r.Body["message_details"], part)
			}
		}
	})
}
