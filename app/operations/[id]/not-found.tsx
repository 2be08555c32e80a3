import Link from "next/link";
import styles from "@/components/operations/operations.module.css";
import { buttonClassName } from "@/components/ui/button";

// Inside the shell of ../layout.tsx.
export default function OperationNotFound() {
  return (
    <div className={styles.page}>
      <h1 className={styles.title}>No such operation</h1>
      <p className={styles.lead}>
        There is no operation with this id; the link may be mistyped. Operations are never deleted.
      </p>
      <p>
        <Link className={buttonClassName("primary")} href="/operations">
          All operations
        </Link>
      </p>
    </div>
  );
}
