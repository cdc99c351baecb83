package api

// ErrCompile is the id of the error a launch answers (the response's
// body.error.id) when its program does not compile: the error's text is
// the compiler's report, each error as file:line:col: message, the line
// and a caret under the column (the report also comes as "stderr"
// output).
const ErrCompile = 1014
