import Link from "next/link";
import { AppShell } from "@/components/app-shell";
import styles from "@/components/record/record.module.css";
import { buttonClassName } from "@/components/ui/button";
import { currentUser } from "@/lib/auth";

function Body() {
  return (
    <div className={styles.notFound}>
      <h1 className={styles.title}>No such review record</h1>
      <p>
        There is no review record with this id; the link may be mistyped. Records are never deleted, so a record that
        once existed is still there under its id.
      </p>
      <p>
        <Link className={buttonClassName("primary")} href="/reviews">
          Back to the queue
        </Link>
      </p>
    </div>
  );
}

export default async function RecordNotFound() {
  const user = await currentUser();
  return user ? (
    <AppShell user={user} current="reviews">
      <Body />
    </AppShell>
  ) : (
    <main id="main" className="rc-shell-main">
      <Body />
    </main>
  );
}
