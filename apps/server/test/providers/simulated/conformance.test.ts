/** The simulated connector (the sandbox's bank) passes the connector conformance suite. */
import { simulatedSubject } from "../../helpers/simulated/conformance-subject.ts";
import { describeConformance } from "../conformance.ts";

describeConformance(simulatedSubject);
