/** SCB passes the connector conformance suite against its simulator. */
import { scbSubject } from "../../helpers/scb/conformance-subject.ts";
import { describeConformance } from "../conformance.ts";

describeConformance(scbSubject);
