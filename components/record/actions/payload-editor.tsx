"use client";

import { json } from "@codemirror/lang-json";
import CodeMirror, { EditorView } from "@uiw/react-codemirror";
import { useMemo } from "react";
import { useCspNonce } from "@/components/csp-nonce";

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
 * CodeMirror with JSON highlighting. Tab is left to the browser (moves focus on), so the editor
 * never traps keyboard users; indentation comes from Enter and the bracket helpers.
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
      indentWithTab={false}
      minHeight="180px"
      maxHeight="320px"
      basicSetup={{ foldGutter: false, autocompletion: false, searchKeymap: false }}
    />
  );
}
