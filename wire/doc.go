// Package wire is taskd's wire format — Worksection's, which the account
// API speaks and the pages' forms follow — read and written in one place
// for both front ends:
//
//   - the inputs of changes: the API's parameters and the pages' form
//     fields are read through Params by ParseTaskInput, ParseProjectInput,
//     ParseCostInput and ParseCommentText, so that a change made in a page
//     is checked exactly as the same change through the API;
//   - amounts: time as decimal hours or H:MM in and H:MM out, money with at
//     most two decimal places in and exactly two out, budgets as bare
//     numbers (amounts.go);
//   - dates: DD.MM.YYYY or YYYY-MM-DD in, taskd.DateLayout or
//     "2006-01-02 15:04" out (dates.go);
//   - the events of changes, which the store writes as get_events and
//     webhooks carry them (event.go);
//   - how a call of the administrative API is signed with the account's
//     key (sign.go): the hash parameter and the Admin header, made by
//     clients such as the importer and checked by package api.
//
// What the values are, and the rules that hold whatever their spelling (a
// name's length, the bounds of a cost line, a task's dates in order), are
// the root package's; wire turns text into them and back. Its errors are
// the root's *taskd.Error, invalid and naming the parameter.
//
// The query language of search_tasks and get_costs has its own package,
// filter.
package wire
