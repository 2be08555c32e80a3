"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useId, useRef, useState } from "react";
import type { SavedView } from "@/lib/views";
import { currentViewId, viewHref } from "./current-view";
import { savedViewsOptions } from "./queries";
import styles from "./views.module.css";

/**
 * The navigation's "Views": a disclosure under the Queue entry listing the person's saved views
 * and the team's shared ones, each a link to the queue filtered as saved; the one the queue shows
 * now is `aria-current`. A panel rather than more links in the bar, so a phone's navigation keeps
 * one short line whatever the number of views. The list arrives prefetched with the page
 * (saved-views-nav.tsx), so it is there before the first click.
 */
export function ViewsMenu() {
  const { data } = useQuery(savedViewsOptions());
  const pathname = usePathname();
  const search = useSearchParams().toString();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);

  const views = data?.views ?? [];
  const current = currentViewId(views, pathname, search);
  const own = views.filter((v) => v.mine);
  const team = views.filter((v) => !v.mine);

  // A click or a focus anywhere else closes it, as menus do.
  useEffect(() => {
    if (!open) return;
    const outside = (event: Event) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", outside);
    document.addEventListener("focusin", outside);
    return () => {
      document.removeEventListener("pointerdown", outside);
      document.removeEventListener("focusin", outside);
    };
  }, [open]);

  return (
    <div
      className={styles.menu}
      ref={rootRef}
      onKeyDown={(event) => {
        if (event.key === "Escape" && open) {
          setOpen(false);
          buttonRef.current?.focus();
        }
      }}
    >
      <button
        ref={buttonRef}
        type="button"
        className={styles.menuButton}
        aria-expanded={open}
        aria-controls={panelId}
        data-current={current ? "true" : undefined}
        onClick={() => setOpen(!open)}
      >
        Views
      </button>
      <div id={panelId} className={styles.panel} hidden={!open}>
        {views.length === 0 ? (
          <p className={styles.empty}>
            No saved views yet. Filter the queue, then choose <strong>Save view…</strong> above its list.
          </p>
        ) : null}
        <ViewGroup title="Your views" views={own} current={current} onOpen={() => setOpen(false)} />
        <ViewGroup title="Shared with the team" views={team} current={current} onOpen={() => setOpen(false)} />
      </div>
    </div>
  );
}

function ViewGroup({
  title,
  views,
  current,
  onOpen,
}: {
  title: string;
  views: SavedView[];
  current: string | null;
  onOpen: () => void;
}) {
  const titleId = useId();
  if (views.length === 0) return null;
  return (
    <>
      <p id={titleId} className={styles.groupTitle}>
        {title}
      </p>
      <ul aria-labelledby={titleId} className={styles.viewList}>
        {views.map((view) => (
          <li key={view.id}>
            <Link
              href={viewHref(view)}
              className={styles.viewLink}
              aria-current={view.id === current ? "page" : undefined}
              onClick={onOpen}
            >
              <span className={styles.viewName}>{view.name}</span>
              <span className={styles.viewMeta}>
                {view.mine ? (view.shared ? "shared" : "") : `by ${view.owner.email}`}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
