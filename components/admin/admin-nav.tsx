"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import styles from "./admin.module.css";

const PAGES = [
  { href: "/admin", label: "People, tokens and domains" },
  { href: "/admin/webhooks", label: "Webhooks" },
] as const;

/** The admin pages, the current one marked. */
export function AdminNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Administration" className={styles.subnav}>
      {PAGES.map((p) => (
        <Link key={p.href} href={p.href} aria-current={pathname === p.href ? "page" : undefined}>
          {p.label}
        </Link>
      ))}
    </nav>
  );
}
