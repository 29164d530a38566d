/** The Opn Payments connector passes the connector conformance suite against its simulator. */
import { opnSubject } from "../../helpers/opn/conformance-subject.ts";
import { describeConformance } from "../conformance.ts";

describeConformance(opnSubject);
