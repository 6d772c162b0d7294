/** Escapes text for HTML element content and quoted attribute values (user-provided names end up in mail bodies). */
export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** C0 controls (CR, LF, TAB, ESC, NUL, ...), DEL, C1 controls (NEL, CSI, ...) and the Unicode line and paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose (they are stripped from mailed text)
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * One line of mail text: every run of control characters (CR/LF included, so nothing can start a
 * header or a line of its own) becomes one space, runs of spaces one space, trimmed. For subjects and
 * for every user-provided name placed in a mail.
 */
export const oneLine = (s: string) => s.replace(CONTROL_CHARACTERS, ' ').replace(/\s+/g, ' ').trim();
