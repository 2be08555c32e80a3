// CSV injection (OWASP, "CSV Injection"): a spreadsheet runs a cell that starts with = + - @, a
// tab or a carriage return as a formula (and DDE). Such a cell gets a leading ' so that it shows
// as the text it is. Leading spaces and line breaks do not hide the character (some spreadsheets
// trim them first), nor do the full-width forms (Apple Numbers folds them to ASCII).
const FORMULA_START = /^[\s\u3000]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|^[\t\r]/;

/** `value` as a spreadsheet will show it: prefixed with ' when it would start a formula. */
export function neutraliseFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}
