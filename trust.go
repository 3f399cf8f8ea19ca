package taskd

// TrustEnded is what a change of trust ended, in the transaction that made
// the change (DESIGN §10): removing a member, changing their role, or
// taking them off a project's team. What the person was given under the
// old trust and may not keep under the new one ends with it:
//
//   - the pending invitations they sent of a role they may no longer
//     grant (all of them when they leave; Role.MayGrant);
//   - their authorizations of applications in the account (all of them
//     when they leave; those holding a scope they may no longer grant,
//     Role.MayGrantScope, on a demotion);
//   - the webhooks they made, disabled with the reason, when they may no
//     longer manage webhooks;
//   - the administrative API key, when they made the current one (it was
//     shown to them once) and may no longer see the settings;
//   - their running timer, stopped and recorded, on a task they may no
//     longer work on;
//   - their notifications waiting to be mailed about what they may no
//     longer see.
//
// Sessions need nothing: every page asks for the member's current role.
// The caller tells whoever made the change what ended.
type TrustEnded struct {
	Invitations int  // invitations cancelled
	Grants      int  // authorizations of applications revoked
	Webhooks    int  // webhooks disabled
	APIKey      bool // the administrative key was revoked
	Timer       bool // the running timer was stopped and its time recorded
}
