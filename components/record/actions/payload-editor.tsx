"use client";

import { json } from "@codemirror/lang-json";
import CodeMirror, { EditorView, oneDark, Prec } from "@uiw/react-codemirror";
import { useMemo } from "react";
import { useCspNonce } from "@/components/csp-nonce";
import { useColorScheme } from "@/components/ui/use-color-scheme";

export interface PayloadEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** id of the visible label; the editable area is named by it. */
  labelledBy: string;
  describedBy: string;
  invalid: boolean;
  /** id given to the editable area, so an error summary can link to it. */
  contentId: string;
}

/**
 * One Dark's highlighting on the page's own dark background: One Dark's grey line numbers and
 * its red property names fall below 4.5:1 on its lighter background. Highest precedence, or One
 * Dark's equally specific rules would win.
 */
const DARK_THEME = [
  oneDark,
  Prec.highest(
    EditorView.theme(
      {
        "&": { backgroundColor: "var(--bg)" },
        ".cm-gutters": { backgroundColor: "var(--surface)", color: "var(--muted)" },
        ".cm-activeLineGutter": { backgroundColor: "var(--surface-2)" },
      },
      { dark: true },
    ),
  ),
];

/**
 * CodeMirror with JSON highlighting, light or dark as the system is. Tab is left to the browser
 * (moves focus on), so the editor never traps keyboard users; indentation comes from Enter and
 * the bracket helpers.
 */
export default function PayloadEditor({
  value,
  onChange,
  labelledBy,
  describedBy,
  invalid,
  contentId,
}: PayloadEditorProps) {
  const nonce = useCspNonce();
  const scheme = useColorScheme();
  const extensions = useMemo(
    () => [
      json(),
      // CodeMirror adds its theme as a <style> element: with the nonce the page's CSP admits it.
      ...(nonce ? [EditorView.cspNonce.of(nonce)] : []),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({
        id: contentId,
        "aria-labelledby": labelledBy,
        "aria-describedby": describedBy,
        "aria-invalid": invalid ? "true" : "false",
        "aria-multiline": "true",
      }),
    ],
    [nonce, contentId, labelledBy, describedBy, invalid],
  );
  return (
    <CodeMirror
      value={value}
      onChange={onChange}
      extensions={extensions}
      theme={scheme === "dark" ? DARK_THEME : "light"}
      indentWithTab={false}
      minHeight="180px"
      maxHeight="320px"
      basicSetup={{ foldGutter: false, autocompletion: false, searchKeymap: false }}
    />
  );
}
