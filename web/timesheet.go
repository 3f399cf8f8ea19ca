package web

import "net/http"

// timesheet is GET /a/{slug}/timesheet (being written).
func (s *Server) timesheet(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	s.fail(w, r, http.StatusNotFound, "There is no such page.")
	return nil
}

// timesheetCSV is GET /a/{slug}/timesheet.csv (being written).
func (s *Server) timesheetCSV(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	s.fail(w, r, http.StatusNotFound, "There is no such page.")
	return nil
}
